import type { EmailEvent } from '../notifications/index.ts';
import type { Transaction } from '../model.ts';
import type { BillingState, BillingWrite } from '../ports.ts';

/** The customer's e-mail of a paid renewal: one per payment entry, whichever path booked it. */
export const renewedEmail = (t: Pick<Transaction, 'id' | 'vendorId' | 'environment'>, entryId: string): EmailEvent => ({
  kind: 'RENEWED',
  scope: { vendorId: t.vendorId, environment: t.environment },
  key: `RENEWED:${entryId}`,
  facts: { transactionId: t.id, entryId },
});

/** A row's billing state as it is, released: what a write changes nothing of until it decides otherwise. */
export function stateAsIs(current: BillingState, billing: NonNullable<BillingState['billing']>): BillingWrite['state'] {
  return {
    status: current.status,
    whoCanceled: current.whoCanceled,
    lastCharge: current.lastCharge,
    nextCharge: current.nextCharge,
    period: billing.period,
    failedAttempts: billing.failedAttempts,
    leaseUntil: null,
  };
}
