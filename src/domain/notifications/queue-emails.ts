import { newId } from '../ids.ts';
import type { EmailEvent } from './customer-email-model.ts';
import type { Repositories } from '../ports.ts';
import type { EmailContext } from './email-context.ts';

/** Queues the e-mails of events inside the caller's database transaction; nothing when e-mails are off. */
export async function recordEmails(
  ctx: EmailContext,
  repos: Pick<Repositories, 'customerEmails'>,
  events: readonly EmailEvent[],
): Promise<void> {
  if (!ctx.enabled || events.length === 0) return;
  const now = ctx.deps.clock.real();
  const at = now.toISOString();
  await repos.customerEmails.enqueue(
    events.map((e) => ({
      id: newId('email', now.getTime()),
      scope: e.scope,
      kind: e.kind,
      eventKey: e.key,
      facts: e.facts,
      status: 'PENDING',
      tries: 0,
      nextTryAt: at,
      lastError: null,
      createdAt: at,
      sentAt: null,
    })),
  );
}
