import type { Clock } from './clock.ts';
import { AppError, invalidState, notFound } from './errors.ts';
import type { PaymentGateway } from './gateway.ts';
import { latestUnreversedPayment, reversalEntry, type NewEntry } from './ledger.ts';
import type { EntryType, Environment, Scope, Transaction } from './model.ts';
import type { Store } from './ports.ts';
import { requireUnchanged, type SeenLedger } from './seen-ledger.ts';

/**
 * Refunds the latest payment not yet refunded. The row lock (and on SQLite the write lock) plus the
 * unique reverses_entry_id make twenty simultaneous refunds produce exactly one.
 */
export interface RefundDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
}

export interface RefundOutcome {
  transaction: Transaction;
  refund: NewEntry;
  payment: { amountTotalMinor: number };
}

const REFUND_TYPE: Record<Transaction['type'], EntryType> = {
  ONETIME: 'ONETIME_PAYMENT_REFUND',
  SUBSCRIPTION: 'SUBSCRIPTION_REFUND',
  // The spec's entry types have no vaulted refund; a vaulted charge is refunded like a one-time payment.
  VAULTED: 'ONETIME_PAYMENT_REFUND',
};

export function refundService(deps: RefundDeps) {
  return {
    /** `seen`: the ledger as the caller showed it; refused if it changed since (a form sent twice). */
    async refund(scope: Scope, id: string, seen?: SeenLedger): Promise<RefundOutcome> {
      return deps.store.transaction(async (repos) => {
        const transaction = await repos.transactions.lock(scope, id);
        if (!transaction) throw notFound(`Transaction ${id}`);
        await requireUnchanged(repos, id, seen);
        if (transaction.status === 'TRANSACTION_STATUS_PENDING')
          throw invalidState(`Transaction ${id} is ${transaction.status}: there is no payment to refund yet.`);
        if (transaction.status === 'TRANSACTION_STATUS_REFUNDED') throw invalidState(`Transaction ${id} is already refunded (status ${transaction.status}).`);
        const entries = await repos.entries.listForTransaction(id);
        const payment = latestUnreversedPayment(entries);
        if (!payment) throw invalidState(`Transaction ${id} (status ${transaction.status}) has no payment left to refund.`);

        const now = deps.clock.now(scope);
        const refund = reversalEntry(payment, {
          type: REFUND_TYPE[transaction.type],
          vendorId: scope.vendorId,
          environment: scope.environment,
          externalId: null,
          at: now,
        });
        const result = await deps.gateways[scope.environment].refund({
          refundId: refund.id,
          chargeReference: payment.externalId,
          amountMinor: payment.amountTotalMinor,
          currency: payment.currency,
        });
        if (result.status !== 'SUCCEEDED') throw new AppError('SERVICE_UNAVAILABLE', `The payment provider refused the refund: ${result.message}`);
        refund.externalId = result.reference;
        await repos.entries.insert(refund);

        // A vaulted method stays usable after one of its charges is refunded.
        const patch: Partial<Transaction> = transaction.type === 'VAULTED' ? {} : { status: 'TRANSACTION_STATUS_REFUNDED', nextCharge: null };
        await repos.transactions.update(scope, id, patch, { flag: 'CHANGED_STATUS_REFUNDED', at: now.toISOString() });
        return { transaction: { ...transaction, ...patch, changeFlag: 'CHANGED_STATUS_REFUNDED' }, refund, payment };
      });
    },
  };
}

export type RefundService = ReturnType<typeof refundService>;
