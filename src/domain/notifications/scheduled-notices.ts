import type { EmailContext } from './email-context.ts';
import { TRIAL_NOTICE_MS } from './customer-email-views.ts';
import { recordEmails } from './queue-emails.ts';

/** Notices go out this long before the charge they announce. */
export const YEARLY_NOTICE_MS = 7 * 86_400_000;
const NOTICE_SCAN_MS = 60_000;

/** The key of a notice of an upcoming charge: one per subscription and charge date (the store finds those not yet queued by it). */
export const noticeKey = (kind: 'TRIAL_ENDING' | 'RENEWAL_UPCOMING', transactionId: string, nextCharge: string) =>
  `${kind}:${transactionId}:${nextCharge}`;

/** When a service last scanned for notices (real time, ms); one per service, as its runs share it. */
export interface NoticeScan {
  scannedAt: number;
}

/**
 * Queues the notices due, unless the last scan was less than a minute ago: notices are due by the day, so
 * one scan a minute is enough, however often the worker runs (a catch-up runs back to back). The number queued.
 */
export async function queueNoticesOnceAMinute(ctx: EmailContext, scan: NoticeScan): Promise<number> {
  const now = ctx.deps.clock.real().getTime();
  if (now - scan.scannedAt >= NOTICE_SCAN_MS || now < scan.scannedAt) {
    scan.scannedAt = now;
    return queueNotices(ctx);
  }
  return 0;
}

/** Queues the notices now due: trials ending within 3 days, yearly renewals within 7, by each clock. */
async function queueNotices(ctx: EmailContext): Promise<number> {
  const { deps } = ctx;
  const clocks = [
    { sandboxVendorId: undefined as string | undefined, offsetMs: 0 },
    ...deps.clock.ahead().map(([id, offsetMs]) => ({ sandboxVendorId: id, offsetMs })),
  ];
  let queued = 0;
  for (const c of clocks) {
    const now = deps.clock.real().getTime() + c.offsetMs;
    // At most 20 pages a run: the next run goes on (and a store that queued nothing cannot loop).
    for (let page = 0; page < 20; page++) {
      const due = await deps.store.customerEmails.noticesDue({
        now: new Date(now).toISOString(),
        trialUntil: new Date(now + TRIAL_NOTICE_MS).toISOString(),
        yearlyUntil: new Date(now + YEARLY_NOTICE_MS).toISOString(),
        sandboxVendorId: c.sandboxVendorId,
        limit: 500,
      });
      if (due.length === 0) break;
      await recordEmails(
        ctx,
        deps.store,
        due.map((d) => ({
          kind: d.kind,
          scope: d.scope,
          key: noticeKey(d.kind, d.transactionId, d.nextCharge),
          facts: { transactionId: d.transactionId, date: d.nextCharge },
        })),
      );
      queued += due.length;
      if (due.length < 500) break;
    }
  }
  return queued;
}
