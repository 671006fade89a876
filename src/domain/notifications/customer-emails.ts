import { randomBytes } from 'node:crypto';
import type { VendorClock } from '../clock.ts';
import type { HostedLinks } from '../hosted-links.ts';
import { withinMs } from '../deadline.ts';
import { newId } from '../ids.ts';
import { AppError } from '../errors.ts';
import type { CustomerEmailKind, Environment, Scope, Vendor } from '../model.ts';
import {
  sampleView,
  supportAddress,
  type ComposedEmail,
  type EmailEvent,
  type EmailReport,
  type EmailSender,
  type EmailView,
  type OutgoingEmail,
  type SendResult,
} from './customer-email-model.ts';
import type { OutboxEmail, Repositories, Store } from '../ports.ts';
import { TRIAL_NOTICE_MS, viewOf } from './customer-email-views.ts';

export { EMAIL_LINK_LIFETIME_SECONDS, TRIAL_NOTICE_MS } from './customer-email-views.ts';

/**
 * Customer e-mails (decisions §20): receipts, notices before a trial ends or a yearly renewal, and
 * messages when a renewal is paid, fails or needs the customer's authentication, when a subscription
 * is cancelled and when a payment is refunded. Off unless the operator configured SMTP.
 *
 * Exactly one e-mail per event: the change that causes it writes the outbox row in its own database
 * transaction, keyed by the event (a second write of the same key is ignored). The worker claims due
 * rows with a lease, as billing claims renewals, and sends them one at a time, recording each as
 * sent as soon as the SMTP server accepted it: a worker killed in between can send that one message
 * twice, with the same Message-ID; killed anywhere else, nothing goes twice. A refused message is
 * tried again with a growing delay, and given up (FAILED, shown in the panel) a day after it was queued.
 */

export interface CustomerEmailDeps {
  store: Store;
  clock: VendorClock;
  /** Undefined when SMTP is not configured: nothing is queued or sent. */
  sender: EmailSender | undefined;
  /** SMTP_FROM: the address every e-mail is sent from. */
  from: string | undefined;
  /** Where sandbox e-mails go: the vendor's own address (the default), or the sandbox's customers. */
  sandboxTo?: 'vendor' | 'customers' | undefined;
  compose(view: EmailView): ComposedEmail;
  links: HostedLinks;
  urls: { base(environment: Environment): string };
}

export interface CustomerEmailOptions {
  /** E-mails per claim. */
  batchSize?: number;
  /** How long a worker holds what it claimed; it stops sending at half of it. */
  leaseMs?: number;
  /** The delay after the first refusal; each next one doubles, up to an hour. */
  firstRetryMs?: number;
  /** A message still refused this long after it was queued is given up. */
  giveUpAfterMs?: number;
  /**
   * How long one message may take, from connecting to the server's last answer: a server that does
   * not answer in time has the message tried again later, and the run ends there (the rest wait for
   * the next run instead of each waiting out the same silence).
   */
  sendDeadlineMs?: number;
}

/** Notices go out this long before the charge they announce. */
export const YEARLY_NOTICE_MS = 7 * 86_400_000;
const MAX_RETRY_MS = 3_600_000;
const NOTICE_SCAN_MS = 60_000;

/** The key of a notice of an upcoming charge: one per subscription and charge date (the store finds those not yet queued by it). */
export const noticeKey = (kind: 'TRIAL_ENDING' | 'RENEWAL_UPCOMING', transactionId: string, nextCharge: string) =>
  `${kind}:${transactionId}:${nextCharge}`;

/** The delay before try `tries + 1` after `tries` refusals: doubling from the first, at most an hour. */
export function retryDelayMs(tries: number, firstRetryMs: number): number {
  return Math.min(MAX_RETRY_MS, firstRetryMs * 2 ** Math.max(0, tries - 1));
}

/** What an e-mail shows of money: its ledger entry in full, else a failed or held renewal's total, else nothing. */
export function customerEmailService(deps: CustomerEmailDeps, options: CustomerEmailOptions = {}) {
  const batchSize = options.batchSize ?? 20;
  const leaseMs = options.leaseMs ?? 300_000;
  const firstRetryMs = options.firstRetryMs ?? 60_000;
  const giveUpAfterMs = options.giveUpAfterMs ?? 86_400_000;
  const sendDeadlineMs = options.sendDeadlineMs ?? 30_000;
  const sender = deps.sender;
  const from = deps.from ?? '';
  const messageDomain = from.slice(from.lastIndexOf('@') + 1) || 'opentill.invalid';
  const enabled = sender !== undefined && from !== '';

  /** Queues the e-mails of events inside the caller's database transaction; nothing when e-mails are off. */
  async function record(repos: Pick<Repositories, 'customerEmails'>, events: readonly EmailEvent[]): Promise<void> {
    if (!enabled || events.length === 0) return;
    const now = deps.clock.real();
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

  /** Queues the notices now due: trials ending within 3 days, yearly renewals within 7, by each clock. */
  let noticesScannedAt = -Infinity;
  async function queueNotices(): Promise<number> {
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
        await record(
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

  /** Everything a template shows, read now; undefined when the transaction is gone. */
  function outgoing(
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
      from: { name: vendor.emails.senderName ?? vendor.name, address: from },
      replyTo: vendor.emails.replyTo ?? supportAddress(vendor),
      to,
      messageId: `<${id}@${messageDomain}>`,
    };
  }

  /** One send, given up (and its connection dropped) after `sendDeadlineMs`: undefined when the server did not answer in time. */
  async function sendWithin(email: OutgoingEmail): Promise<SendResult | undefined> {
    const abort = new AbortController();
    const result = await withinMs(sender!.send(email, abort.signal), sendDeadlineMs, undefined);
    if (result === undefined) abort.abort();
    return result;
  }

  type Outcome = keyof Omit<EmailReport, 'more' | 'queued'>;

  /** Sends one claimed e-mail and records its outcome: the outcome's name for the report, and whether the server went silent. */
  async function deliver(
    email: OutboxEmail,
    owner: string,
    vendors: Map<string, Vendor | undefined>,
  ): Promise<{ outcome: Outcome; silent?: true }> {
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
      whileAway(() =>
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
      outgoing(vendor, found.to, deps.compose(found.view), email.id, email.scope.environment),
    );
    const result = sent ?? {
      status: 'REFUSED',
      permanent: false,
      reason: `The SMTP server did not answer within ${Math.round(sendDeadlineMs / 1000)} s.`,
    };
    const tries = email.tries + 1;
    if (result.status === 'SENT') {
      await settle('SENT', tries, null);
      return { outcome: 'sent' };
    }
    const retryAt = now().getTime() + retryDelayMs(tries, firstRetryMs);
    if (result.permanent || retryAt > Date.parse(email.createdAt) + giveUpAfterMs) {
      await settle('FAILED', tries, result.reason);
      return { outcome: 'failed' };
    }
    await settle('PENDING', tries, result.reason, new Date(retryAt).toISOString());
    return sent ? { outcome: 'retried' } : { outcome: 'retried', silent: true };
  }

  /** Gives claimed e-mails back unsent and unchanged, for the next run (or another worker) to take at once. */
  async function handBack(emails: readonly OutboxEmail[], owner: string) {
    for (const e of emails) {
      await whileAway(() =>
        deps.store.customerEmails.settle(e.id, owner, {
          status: e.status,
          tries: e.tries,
          lastError: e.lastError,
          nextTryAt: e.nextTryAt,
          sentAt: null,
        }),
      );
    }
  }

  /**
   * An e-mail's record written, tried again while the database is away (for up to half a lease): an
   * e-mail the server took must not be sent again because its outcome could not be written, nor one
   * claimed wait out its lease because it could not be handed back (docs/operations.md).
   */
  async function whileAway<T>(write: () => Promise<T>): Promise<T> {
    const until = Date.now() + leaseMs / 2;
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        return await write();
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE') || Date.now() + delayMs > until) throw err;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  function preview(vendor: Vendor, kind: CustomerEmailKind, environment: Environment): OutgoingEmail {
    const sample = sampleView(vendor, kind, environment, deps.urls.base(environment));
    return outgoing(vendor, 'customer@example.com', deps.compose(sample), newId('email'), environment);
  }

  return {
    /** True when SMTP is configured: events queue e-mails and the worker sends them. */
    enabled,
    record,

    /**
     * Queues the notices due, then sends what is due, a claimed batch at a time, until nothing is
     * due, `budgetMs` passed or `stopping` says so (checked before each message). Safe to run in several workers at once.
     */
    async runDue(budgetMs = 20_000, stopping: () => boolean = () => false): Promise<EmailReport> {
      const report: EmailReport = { queued: 0, sent: 0, retried: 0, failed: 0, skipped: 0, more: false };
      if (!enabled) return report;
      // Notices are due by the day: one scan a minute is enough, however often the worker runs (a catch-up runs back to back).
      const now = deps.clock.real().getTime();
      if (now - noticesScannedAt >= NOTICE_SCAN_MS || now < noticesScannedAt) {
        noticesScannedAt = now;
        report.queued = await queueNotices();
      }
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
          const { outcome, silent } = await deliver(email, owner, vendors).catch(async (err: unknown) => {
            // Its reads failed (the database went away): it and the rest go back at once, not after their lease.
            await handBack(batch.slice(i), owner);
            throw err;
          });
          report[outcome]++;
          if (silent) {
            await handBack(batch.slice(i + 1), owner);
            return report;
          }
        }
        if (batch.length < batchSize) return report;
        if (Date.now() - started > budgetMs || stopping()) return { ...report, more: true };
      }
    },

    /** The vendor's latest e-mails (newest first), with whom each went to, for the panel. */
    list: (scope: Scope, limit = 50) => deps.store.customerEmails.list(scope, limit),

    /** An e-mail of this kind with sample data, as the vendor's customers would get it. */
    preview,

    /** Sends a sample of this kind to the vendor at once (not through the outbox): the answer says what SMTP said. */
    async sendTest(
      vendor: Vendor,
      kind: CustomerEmailKind,
      environment: Environment,
      to: string,
    ): Promise<SendResult | { status: 'OFF' }> {
      if (!enabled) return { status: 'OFF' };
      return sender!.send({ ...preview(vendor, kind, environment), to });
    },

    /** Closes the SMTP connections. */
    close: () => sender?.close(),
  };
}

export type CustomerEmailService = ReturnType<typeof customerEmailService>;

/** The part of the service the changes that cause e-mails call, inside their database transactions. */
export type EmailRecorder = Pick<CustomerEmailService, 'record' | 'enabled'>;
