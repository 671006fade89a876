import type { LedgerEntry, PaymentMethod, Scope, Transaction } from '../model.ts';
import type { PurchaseRequest, PurchaseService } from './purchases.ts';
import type { TransactionService } from './transactions.ts';

/**
 * The hosted checkout's payment: one form token, one payment. The token is the key of the purchase's
 * charge attempt (src/domain/payments/charge-protocol.ts): a second submit of the same form, a reload of the
 * POST, a double click or twenty at once find that attempt and show its outcome; none pays again.
 * A token is bound to the product, price, vendor and environment it was first used for: sent with
 * another product's form it is refused (IDEMPOTENCY_CONFLICT), and another form's payment is never
 * shown as this one's.
 */
export interface CheckoutDeps {
  purchases: Pick<PurchaseService, 'purchase' | 'status' | 'startBrowserPayment'>;
  transactions: Pick<TransactionService, 'ledgerOf' | 'methodOf'>;
}

export type CheckoutOutcome =
  | {
      status: 'PAID';
      transaction: Transaction;
      entries: LedgerEntry[];
      licence: string | null;
      /** What it was paid with (the receipt shows it); null when no method was taken. */
      method: PaymentMethod | null;
    }
  | { status: 'DECLINED'; message: string }
  /** The card network's answer is not known yet: the page says so and asks again by itself. */
  | { status: 'PENDING'; message: string };

export const checkoutKey = (formToken: string) => `checkout:${formToken}`;

/** The processor's session the browser confirms the payment in (card entry in the browser). */
export type CheckoutSession = { status: 'SESSION'; clientSecret: string; mode: 'payment' | 'setup' };

export function checkoutService(deps: CheckoutDeps) {
  async function present(result: Awaited<ReturnType<PurchaseService['purchase']>>): Promise<CheckoutOutcome> {
    if (result.status === 'PENDING') return { status: 'PENDING', message: result.message };
    if (result.status === 'DECLINED') return { status: 'DECLINED', message: result.message };
    // The purchase read its transaction, in this scope, once it was settled: only the ledger is left to read.
    const entries = await deps.transactions.ledgerOf(result.transaction);
    const method = await deps.transactions.methodOf(result.transaction);
    return { status: 'PAID', transaction: result.transaction, entries, licence: result.licence, method };
  }

  return {
    async pay(scope: Scope, formToken: string, request: PurchaseRequest): Promise<CheckoutOutcome> {
      return present(await deps.purchases.purchase(scope, { ...request, attemptKey: checkoutKey(formToken) }));
    },

    /** Starts (or, the same form again, finds) the processor's browser session of a form's payment; settled already: its outcome. */
    async startSession(
      scope: Scope,
      formToken: string,
      request: Omit<PurchaseRequest, 'card'>,
    ): Promise<CheckoutOutcome | CheckoutSession> {
      const result = await deps.purchases.startBrowserPayment(scope, {
        ...request,
        attemptKey: checkoutKey(formToken),
      });
      if (result.status === 'SESSION')
        return { status: 'SESSION', clientSecret: result.clientSecret, mode: result.mode };
      if (result.status === 'NEEDS_BROWSER') throw new Error('a session was asked for and none started');
      return present(result);
    },

    /**
     * A form whose card the processor takes in the browser, sent without the page's script: booked when
     * there is nothing to pay and no card to keep (or its payment is already settled), else NEEDS_BROWSER,
     * with no session started at the processor that this page could never confirm.
     */
    async payWithoutBrowser(
      scope: Scope,
      formToken: string,
      request: Omit<PurchaseRequest, 'card'>,
    ): Promise<CheckoutOutcome | { status: 'NEEDS_BROWSER' }> {
      const result = await deps.purchases.startBrowserPayment(
        scope,
        { ...request, attemptKey: checkoutKey(formToken) },
        { sessions: false },
      );
      if (result.status === 'NEEDS_BROWSER') return result;
      if (result.status === 'SESSION') throw new Error('a session was started for a form sent without its script');
      return present(result);
    },

    /**
     * The payment of a form, asked again (the self-refreshing "being confirmed" page); undefined if the
     * form never paid or, with `productId`, was not that product's form.
     */
    async status(scope: Scope, formToken: string, productId?: string): Promise<CheckoutOutcome | undefined> {
      const result = await deps.purchases.status(scope, checkoutKey(formToken), productId);
      return result && present(result);
    },
  };
}

export type CheckoutService = ReturnType<typeof checkoutService>;
