import { randomBytes } from 'node:crypto';
import type { Vendor } from '../model.ts';
import type { EmailReport } from './customer-email-model.ts';
import type { OutboxEmail } from '../ports.ts';
import { deliver } from './deliver-email.ts';
import type { EmailContext } from './email-context.ts';
import { whileAway } from './email-retry.ts';
import { queueNoticesOnceAMinute, type NoticeScan } from './scheduled-notices.ts';

/**
 * Queues the notices due, then sends what is due, a claimed batch at a time, until nothing is
 * due, `budgetMs` passed or `stopping` says so (checked before each message). Safe to run in several workers at once.
 */
export async function runDueEmails(
  ctx: EmailContext,
  scan: NoticeScan,
  budgetMs: number,
  stopping: () => boolean,
): Promise<EmailReport> {
  const { deps, leaseMs, batchSize } = ctx;
  const report: EmailReport = { queued: 0, sent: 0, retried: 0, failed: 0, skipped: 0, more: false };
  if (!ctx.enabled) return report;
  report.queued = await queueNoticesOnceAMinute(ctx, scan);
  const started = Date.now();
  const vendors = new Map<string, Vendor | undefined>();
  for (;;) {
    const owner = randomBytes(12).toString('base64url');
    const now = deps.clock.real();
    const claimedAt = Date.now();
    const batch = await deps.store.customerEmails.claim({
      now: now.toISOString(),
      owner,
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
      limit: batchSize,
    });
    for (const [i, email] of batch.entries()) {
      // Past half its lease, a worker leaves the rest: another may claim them once the lease ends.
      if (Date.now() - claimedAt > leaseMs / 2 || stopping()) break;
      const { outcome, silent } = await deliver(ctx, email, owner, vendors).catch(async (err: unknown) => {
        // Its reads failed (the database went away): it and the rest go back at once, not after their lease.
        await handBack(ctx, batch.slice(i), owner);
        throw err;
      });
      report[outcome]++;
      if (silent) {
        await handBack(ctx, batch.slice(i + 1), owner);
        return report;
      }
    }
    if (batch.length < batchSize) return report;
    if (Date.now() - started > budgetMs || stopping()) return { ...report, more: true };
  }
}

/** Gives claimed e-mails back unsent and unchanged, for the next run (or another worker) to take at once. */
async function handBack(ctx: EmailContext, emails: readonly OutboxEmail[], owner: string) {
  for (const e of emails) {
    await whileAway(ctx, () =>
      ctx.deps.store.customerEmails.settle(e.id, owner, {
        status: e.status,
        tries: e.tries,
        lastError: e.lastError,
        nextTryAt: e.nextTryAt,
        sentAt: null,
      }),
    );
  }
}
