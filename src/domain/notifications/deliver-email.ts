import { withinMs } from '../deadline.ts';
import type { Vendor } from '../model.ts';
import type { EmailReport, OutgoingEmail, SendResult } from './customer-email-model.ts';
import type { OutboxEmail } from '../ports.ts';
import { viewOf } from './customer-email-views.ts';
import type { EmailContext } from './email-context.ts';
import { retryDelayMs, whileAway } from './email-retry.ts';
import { outgoing } from './outgoing-email.ts';

type Outcome = keyof Omit<EmailReport, 'more' | 'queued'>;

/** Sends one claimed e-mail and records its outcome: the outcome's name for the report, and whether the server went silent. */
export async function deliver(
  ctx: EmailContext,
  email: OutboxEmail,
  owner: string,
  vendors: Map<string, Vendor | undefined>,
): Promise<{ outcome: Outcome; silent?: true }> {
  const { deps } = ctx;
  const { vendorId } = email.scope;
  if (!vendors.has(vendorId)) vendors.set(vendorId, await deps.store.vendors.find(vendorId));
  const vendor = vendors.get(vendorId);
  const now = () => deps.clock.real();
  const settle = (
    status: OutboxEmail['status'],
    tries: number,
    lastError: string | null,
    nextTryAt = email.nextTryAt,
  ) =>
    whileAway(ctx, () =>
      deps.store.customerEmails.settle(email.id, owner, {
        status,
        tries,
        lastError,
        nextTryAt,
        sentAt: status === 'SENT' ? now().toISOString() : null,
      }),
    );
  if (!vendor || vendor.emails.off.includes(email.kind)) {
    await settle('SKIPPED', email.tries, vendor ? 'This e-mail was turned off in the panel.' : 'The vendor is gone.');
    return { outcome: 'skipped' };
  }
  const found = await viewOf(deps, email, vendor);
  if (!found) {
    await settle('FAILED', email.tries, 'Its transaction is gone.');
    return { outcome: 'failed' };
  }
  if (found.shortTrial) {
    await settle('SKIPPED', email.tries, 'The trial is 3 days or shorter: its receipt already said when it ends.');
    return { outcome: 'skipped' };
  }
  const sent = await sendWithin(
    ctx,
    outgoing(ctx, vendor, found.to, deps.compose(found.view), email.id, email.scope.environment),
  );
  const result = sent ?? {
    status: 'REFUSED',
    permanent: false,
    reason: `The SMTP server did not answer within ${Math.round(ctx.sendDeadlineMs / 1000)} s.`,
  };
  const tries = email.tries + 1;
  if (result.status === 'SENT') {
    await settle('SENT', tries, null);
    return { outcome: 'sent' };
  }
  const retryAt = now().getTime() + retryDelayMs(tries, ctx.firstRetryMs);
  if (result.permanent || retryAt > Date.parse(email.createdAt) + ctx.giveUpAfterMs) {
    await settle('FAILED', tries, result.reason);
    return { outcome: 'failed' };
  }
  await settle('PENDING', tries, result.reason, new Date(retryAt).toISOString());
  return sent ? { outcome: 'retried' } : { outcome: 'retried', silent: true };
}

/** One send, given up (and its connection dropped) after `sendDeadlineMs`: undefined when the server did not answer in time. */
async function sendWithin(ctx: EmailContext, email: OutgoingEmail): Promise<SendResult | undefined> {
  const abort = new AbortController();
  const result = await withinMs(ctx.sender!.send(email, abort.signal), ctx.sendDeadlineMs, undefined);
  if (result === undefined) abort.abort();
  return result;
}
