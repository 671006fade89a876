import type { Booking } from './attempt-outcomes.ts';
import type { Clock } from '../clock.ts';
import type { PaymentGateway } from './gateway.ts';
import { paymentEntry } from './ledger.ts';
import { vendorFeeTerms, type FeeTerms } from './platform-fees.ts';
import type { Environment } from '../model.ts';

/**
 * How a settled vaulted charge is written: its payment entry and the method's last charge, or, for a
 * permanent decline, the method made inactive. By the charge protocol when the gateway answers, and by the reconciler.
 */
export function vaultedChargeBooking(
  deps: FeeTerms & {
    clock: Clock;
    gateways: Record<Environment, PaymentGateway>;
  },
): Booking<'VAULTED'> {
  return {
    async succeeded(repos, attempt, paid) {
      const { plan } = attempt;
      // The vendor's time (a sandbox may run ahead), as a purchase's: the protocol's own time is real time.
      const at = deps.clock.now(attempt.scope);
      // The row first, then the invoice counter (inside the entry insert): billing takes them in this order too.
      const transaction = await repos.transactions.lock(attempt.scope, plan.transactionId);
      if (!transaction) throw new Error(`vaulted charge ${attempt.key}: transaction ${plan.transactionId} is missing`);
      await repos.entries.insert(
        paymentEntry({
          type: 'VAULTED_PAYMENT',
          transaction,
          quote: plan.quote,
          paid,
          provider: deps.gateways[attempt.scope.environment].provider,
          fee: await vendorFeeTerms(repos, transaction.vendorId, deps),
          at,
          description: plan.description,
        }),
      );
      await repos.transactions.update(attempt.scope, plan.transactionId, { lastCharge: at.toISOString() });
    },
    async declined(repos, attempt, decline, at) {
      if (!decline.permanent) return;
      const { plan } = attempt;
      await repos.transactions.update(
        attempt.scope,
        plan.transactionId,
        { status: 'VAULTED_STATUS_INACTIVE' },
        { flag: 'CHANGED_STATUS_VAULTED_DEACTIVATION', at: at.toISOString() },
      );
    },
  };
}
