import type { BillingReport } from './billing.ts';
import type { ReconcileReport } from './charge-protocol.ts';
import type { EmailReport } from './customer-email-model.ts';
import type { ProcessorEventReport } from './processor-events.ts';

/** One run of the worker: billing's steps, the processor's events acted on, the customer e-mails sent, and the charge attempts the reconciler settled. */
export type WorkerReport = BillingReport & {
  attempts: ReconcileReport;
  events: ProcessorEventReport;
  emails: EmailReport;
};
