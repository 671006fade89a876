import { periodStartOf } from './billing-period.ts';
import type { BillingContext } from './billing-context.ts';
import { renewedEmail, stateAsIs } from './renewal-records.ts';
import { paymentEntry, vendorFeeTerms, type Booking } from '../payments/index.ts';
import type { AttemptOf, BillingWrite } from '../ports.ts';

/**
 * How the reconciler books a renewal left open when its subscription stopped being billed (it was
 * cancelled or refunded before billing asked again): the money that moved is recorded for its
 * period, once, and the vendor sees the transaction in the feed. A subscription cancelled to the end
 * of its period runs to the end of the period this payment paid for.
 */
function orphanBooking({ deps }: BillingContext): Booking<'RENEWAL'> {
  return {
    async succeeded(repos, attempt, paid, at) {
      const { plan } = attempt;
      if (!plan) throw new Error(`renewal ${attempt.key} has no plan to book`);
      const id = attempt.transactionId ?? '';
      const current = (await repos.billing.lockMany([id])).get(id);
      const transaction = await repos.transactions.find(attempt.scope, id);
      if (!current || !transaction) throw new Error(`renewal ${attempt.key}: its transaction is gone`);
      if ((await repos.entries.listForTransaction(id)).some((e) => e.periodStart === plan.periodStart)) return;
      const billing = current.billing ?? { anchor: plan.periodStart, period: plan.period, failedAttempts: 0 };
      const write: BillingWrite = {
        transactionId: id,
        state: stateAsIs(current, billing),
        change: { flag: 'CHANGED_STATUS_RENEWED', at: at.toISOString() },
        attempt: null,
        entry: null,
      };
      write.entry = paymentEntry({
        type: 'SUBSCRIPTION_PAYMENT',
        transaction,
        quote: plan.quote,
        paid,
        provider: deps.gateways[attempt.scope.environment].provider,
        fee: await vendorFeeTerms(repos, transaction.vendorId, deps),
        at,
        periodStart: plan.periodStart,
      });
      write.state.lastCharge = at.toISOString();
      await deps.emails?.record(repos, [renewedEmail(transaction, write.entry.id)]);
      if (current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' && billing.period === plan.period) {
        Object.assign(write.state, {
          period: plan.period + 1,
          nextCharge: periodStartOf(billing, current.chargeFrequency, plan.period + 1).toISOString(),
        });
      }
      await repos.billing.apply([write]);
    },
  };
}

/** For the reconciler: renewals whose subscription billing no longer asks about. */
export function orphanRenewals(ctx: BillingContext) {
  const { deps } = ctx;
  return {
    booking: orphanBooking(ctx),
    /** Billing asks about this renewal again itself: its subscription is still billed. */
    async billedByBilling(attempt: AttemptOf<'RENEWAL'>): Promise<boolean> {
      const transaction = attempt.transactionId
        ? await deps.store.transactions.find(attempt.scope, attempt.transactionId)
        : undefined;
      const billed =
        transaction?.status === 'SUBSCRIPTION_STATUS_ACTIVE' ||
        transaction?.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL';
      return billed && transaction.nextCharge !== null;
    },
  };
}
