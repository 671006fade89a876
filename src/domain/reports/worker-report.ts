import type { BillingReport } from '../billing/index.ts';
import type { ReconcileReport } from '../payments/index.ts';
import type { EmailReport } from '../notifications/index.ts';
import type { ProcessorEventReport } from '../processor/index.ts';

/** One run of the worker: billing's steps, the processor's events acted on, the customer e-mails sent, and the charge attempts the reconciler settled. */
export type WorkerReport = BillingReport & {
  attempts: ReconcileReport;
  events: ProcessorEventReport;
  emails: EmailReport;
};
