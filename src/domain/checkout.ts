import { createHash } from 'node:crypto';
import { AppError } from './errors.ts';
import type { IdempotencyService } from './idempotency.ts';
import type { LedgerEntry, Scope, Transaction } from './model.ts';
import type { PurchaseRequest, PurchaseService } from './purchases.ts';
import type { TransactionService } from './transactions.ts';

/**
 * The hosted checkout's payment: one form token, one payment. The token is an idempotency key of the
 * one idempotency mechanism (src/domain/idempotency.ts): a second submit of the same form, a reload
 * of the POST or a double click shows the first outcome and never pays again.
 */
export interface CheckoutDeps {
  idempotency: IdempotencyService;
  purchases: Pick<PurchaseService, 'purchase'>;
  transactions: Pick<TransactionService, 'get'>;
}

export type CheckoutOutcome =
  | { status: 'PAID'; transaction: Transaction; entries: LedgerEntry[]; licence: string | null }
  | { status: 'DECLINED'; message: string }
  /** The same form is being paid by another request right now. */
  | { status: 'IN_PROGRESS' };

export function checkoutService(deps: CheckoutDeps) {
  return {
    async pay(scope: Scope, formToken: string, request: PurchaseRequest): Promise<CheckoutOutcome> {
      const key = `checkout:${formToken}`;
      const fingerprint = createHash('sha256').update(request.productId).digest('hex');
      let claim;
      try {
        claim = await deps.idempotency.claim(scope, key, fingerprint);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'REQUEST_IN_PROGRESS' || err.code === 'IDEMPOTENCY_CONFLICT')) return { status: 'IN_PROGRESS' };
        throw err;
      }
      if (claim.status === 'done') {
        const done = await deps.transactions.get(scope, claim.body).catch(() => undefined);
        return done ? { status: 'PAID', ...done, licence: null } : { status: 'IN_PROGRESS' };
      }

      let keep = false;
      try {
        const result = await deps.purchases.purchase(scope, request);
        if (result.status === 'DECLINED') return { status: 'DECLINED', message: result.message };
        await deps.idempotency.complete(scope, key, 200, result.transaction.id);
        keep = true;
        const { entries } = await deps.transactions.get(scope, result.transaction.id);
        return { status: 'PAID', transaction: result.transaction, entries, licence: result.licence };
      } catch (err) {
        // The provider did not answer: the payment may have gone through. The token stays claimed so
        // this form cannot pay again; it is reconciled, not retried.
        if (err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE') keep = true;
        throw err;
      } finally {
        // Anything but a payment frees the token, so the customer can correct the form and retry.
        if (!keep) await deps.idempotency.release(scope, key);
      }
    },
  };
}

export type CheckoutService = ReturnType<typeof checkoutService>;
