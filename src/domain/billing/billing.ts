import { bookAuthenticated } from './authenticated-renewal.ts';
import { billingContext, type BillingDeps, type BillingOptions } from './billing-context.ts';
import { orphanRenewals } from './orphan-renewals.ts';
import { runDue, type RunDueOptions } from './run-due.ts';
import { skipStoppedRenewals } from './stopped-renewals.ts';
import type { ChargeAttempt } from '../ports.ts';

export type { AuthenticatedRenewal } from './authenticated-renewal.ts';
export type { BillingDeps, BillingOptions, BillingReport } from './billing-context.ts';
export { emptyBillingReport } from './billing-context.ts';
export { renewalNet } from './renewal-plan.ts';
export type { RunDueOptions } from './run-due.ts';

/**
 * The billing engine: renewals at nextCharge, the first charge after a trial, dunning retries,
 * the end of cancelled subscriptions' paid periods, and expiry of customized products.
 *
 * Exactly once: a charge's identity is (transaction, period, try). Its attempt is committed before
 * the gateway is called, and the gateway is always asked with that attempt's id, which a provider
 * answers with the first outcome when asked again. The ledger entry, new dates, status, change flag
 * and settled attempt are then written in one database transaction, guarded by the row's state, and
 * the ledger's unique (transaction, period) index is the last line of defence. A worker killed at
 * any point leaves either nothing or a PENDING attempt that the next run settles through the same id.
 *
 * Each use case has its file: planning a renewal (renewal-plan.ts), claiming a batch and recording
 * its attempts (renewal-claim.ts), asking the gateways (renewal-charge.ts), deciding and writing the
 * outcomes (renewal-outcome.ts, renewal-write.ts), the run over every clock (run-due.ts), and the
 * renewals booked from elsewhere (authenticated-renewal.ts, orphan-renewals.ts).
 */
export function billingService(deps: BillingDeps, options: BillingOptions = {}) {
  const ctx = billingContext(deps, options);
  return {
    /** For the reconciler: renewals whose subscription billing no longer asks about. */
    renewals: orphanRenewals(ctx),

    /** A renewal held for authentication (3-D Secure) that the customer then authenticated: booked once (authenticated-renewal.ts). */
    bookAuthenticated: (held: ChargeAttempt, reference: string) => bookAuthenticated(ctx, held, reference),

    /** Does what is due now, real time first, then each sandbox whose clock was moved (run-due.ts). */
    runDue: (only?: RunDueOptions) => runDue(ctx, only),

    /** A vendor's stopped renewals going on again: those that fell due meanwhile move on to the period of now (stopped-renewals.ts). */
    skipStoppedRenewals: (vendorId: string) => skipStoppedRenewals(ctx, vendorId),
  };
}

export type BillingService = ReturnType<typeof billingService>;
