import { withinMs } from '../deadline.ts';
import { newId } from '../ids.ts';
import type { CustomerEmailKind, Environment, Vendor } from '../model.ts';
import {
  sampleView,
  supportAddress,
  type ComposedEmail,
  type OutgoingEmail,
  type SendResult,
} from './customer-email-model.ts';
import type { EmailContext } from './email-context.ts';

/** The message as it goes out: the composed e-mail with its sender, reply-to, recipient and Message-ID. */
export function outgoing(
  ctx: EmailContext,
  vendor: Vendor,
  to: string,
  composed: ComposedEmail,
  id: string,
  environment: Environment,
): OutgoingEmail {
  return {
    ...composed,
    // A sandbox e-mail says so in its subject: a vendor testing must not mistake it for a real sale.
    subject: environment === 'sandbox' ? `[Test] ${composed.subject}` : composed.subject,
    from: { name: vendor.emails.senderName ?? vendor.name, address: ctx.from },
    replyTo: vendor.emails.replyTo ?? supportAddress(vendor),
    to,
    messageId: `<${id}@${ctx.messageDomain}>`,
  };
}

/** An e-mail of this kind with sample data, as the vendor's customers would get it. */
export function previewEmail(
  ctx: EmailContext,
  vendor: Vendor,
  kind: CustomerEmailKind,
  environment: Environment,
): OutgoingEmail {
  const sample = sampleView(vendor, kind, environment, ctx.deps.urls.base(environment));
  return outgoing(ctx, vendor, 'customer@example.com', ctx.deps.compose(sample), newId('email'), environment);
}

/** Sends a sample of this kind to the vendor at once (not through the outbox): the answer says what SMTP said. */
export async function sendTestEmail(
  ctx: EmailContext,
  vendor: Vendor,
  kind: CustomerEmailKind,
  environment: Environment,
  to: string,
): Promise<SendResult | { status: 'OFF' }> {
  if (!ctx.enabled) return { status: 'OFF' };
  return ctx.sender!.send({ ...previewEmail(ctx, vendor, kind, environment), to });
}

/**
 * A message composed elsewhere (the portal's sign-in and management links, docs/decisions.md §34) sent
 * at once, not through the outbox: its link is worth minutes. A sandbox's goes to the vendor, as the
 * outbox's do; `compose` is told whom it was meant for then.
 */
export async function sendNow(
  ctx: EmailContext,
  vendor: Vendor,
  customerEmail: string,
  compose: (meantFor: string | undefined) => ComposedEmail,
  environment: Environment,
): Promise<SendResult | { status: 'OFF' }> {
  if (!ctx.enabled) return { status: 'OFF' };
  const toVendor = environment === 'sandbox' && (ctx.deps.sandboxTo ?? 'vendor') === 'vendor';
  const email = outgoing(
    ctx,
    vendor,
    toVendor ? vendor.email : customerEmail,
    compose(toVendor ? customerEmail : undefined),
    newId('email'),
    environment,
  );
  const abort = new AbortController();
  const sent = await withinMs(ctx.sender!.send(email, abort.signal), ctx.sendDeadlineMs, undefined);
  if (sent) return sent;
  abort.abort();
  return { status: 'REFUSED', permanent: false, reason: 'The SMTP server did not answer in time.' };
}
