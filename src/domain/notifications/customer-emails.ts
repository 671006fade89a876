import type { CustomerEmailKind, Environment, Scope, Vendor } from '../model.ts';
import type { ComposedEmail, EmailEvent, EmailReport } from './customer-email-model.ts';
import type { Repositories } from '../ports.ts';
import { emailContext, type CustomerEmailDeps, type CustomerEmailOptions } from './email-context.ts';
import { previewEmail, sendNow, sendTestEmail } from './outgoing-email.ts';
import { recordEmails } from './queue-emails.ts';
import type { NoticeScan } from './scheduled-notices.ts';
import { runDueEmails } from './send-due-emails.ts';

export { EMAIL_LINK_LIFETIME_SECONDS, TRIAL_NOTICE_MS } from './customer-email-views.ts';
export type { CustomerEmailDeps, CustomerEmailOptions } from './email-context.ts';
export { retryDelayMs } from './email-retry.ts';
export { noticeKey, YEARLY_NOTICE_MS } from './scheduled-notices.ts';

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
 *
 * Each use case has its file: queueing (queue-emails.ts), the scheduled notices (scheduled-notices.ts),
 * claiming and sending (send-due-emails.ts, deliver-email.ts), retrying (email-retry.ts), what goes out
 * (outgoing-email.ts).
 */
export function customerEmailService(deps: CustomerEmailDeps, options: CustomerEmailOptions = {}) {
  const ctx = emailContext(deps, options);
  // The last notice scan: shared by the service's runs, so a run right after another does not scan again.
  const noticeScan: NoticeScan = { scannedAt: -Infinity };
  return {
    /** True when SMTP is configured: events queue e-mails and the worker sends them. */
    enabled: ctx.enabled,
    /** Queues the e-mails of events inside the caller's database transaction; nothing when e-mails are off. */
    record: (repos: Pick<Repositories, 'customerEmails'>, events: readonly EmailEvent[]): Promise<void> =>
      recordEmails(ctx, repos, events),
    /** Queues the notices due, then sends what is due (send-due-emails.ts). */
    runDue: (budgetMs = 20_000, stopping: () => boolean = () => false): Promise<EmailReport> =>
      runDueEmails(ctx, noticeScan, budgetMs, stopping),
    /** The vendor's latest e-mails (newest first), with whom each went to, for the panel. */
    list: (scope: Scope, limit = 50) => deps.store.customerEmails.list(scope, limit),
    /** An e-mail of this kind with sample data, as the vendor's customers would get it. */
    preview: (vendor: Vendor, kind: CustomerEmailKind, environment: Environment) =>
      previewEmail(ctx, vendor, kind, environment),
    /** Sends a sample of this kind to the vendor at once (not through the outbox): the answer says what SMTP said. */
    sendTest: (vendor: Vendor, kind: CustomerEmailKind, environment: Environment, to: string) =>
      sendTestEmail(ctx, vendor, kind, environment, to),
    /** Sends a message composed elsewhere at once, to a customer (a sandbox's to the vendor): the portal's links. */
    sendNow: (
      vendor: Vendor,
      customerEmail: string,
      compose: (meantFor: string | undefined) => ComposedEmail,
      environment: Environment,
    ) => sendNow(ctx, vendor, customerEmail, compose, environment),
    /** Closes the SMTP connections. */
    close: () => ctx.sender?.close(),
  };
}

export type CustomerEmailService = ReturnType<typeof customerEmailService>;

/** The part of the service the changes that cause e-mails call, inside their database transactions. */
export type EmailRecorder = Pick<CustomerEmailService, 'record' | 'enabled'>;
