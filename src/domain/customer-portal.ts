import type { Clock } from './clock.ts';
import { invalidState, notFound } from './errors.ts';
import type { CardInput, PaymentGateway } from './gateway.ts';
import { newId } from './ids.ts';
import type { Environment, LedgerEntry, PaymentMethod, Scope, Transaction } from './model.ts';
import type { Store } from './ports.ts';
import type { TransactionService } from './transactions.ts';
import { requireCardExpiry } from './validation.ts';

/**
 * What a customer can see and do on the management page of one vendor: their transactions with
 * their invoices, licence keys and saved cards; cancel a subscription (whoCanceled CUSTOMER);
 * replace the card of a subscription or vaulted method. Only the customer's own transactions:
 * anything else is "not found".
 */
export interface PortalDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  transactions: Pick<TransactionService, 'cancel'>;
}

export interface PortalItem {
  transaction: Transaction;
  /** Payments and refunds, oldest first: each has an invoice or credit note. */
  entries: LedgerEntry[];
  licence: string | null;
  card: Pick<PaymentMethod, 'brand' | 'last4' | 'expMonth' | 'expYear'> | null;
}

export type CardUpdate = { status: 'UPDATED'; transaction: Transaction } | { status: 'DECLINED'; message: string };

const CANCELLABLE: Transaction['status'][] = ['SUBSCRIPTION_STATUS_ACTIVE', 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL', 'VAULTED_STATUS_ACTIVE'];
const CARD_IN_USE: Transaction['status'][] = ['SUBSCRIPTION_STATUS_ACTIVE', 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL', 'VAULTED_STATUS_ACTIVE'];

export const canCancel = (t: Transaction) => CANCELLABLE.includes(t.status);
export const canUpdateCard = (t: Transaction) => CARD_IN_USE.includes(t.status);

export function customerPortalService(deps: PortalDeps) {
  async function ownTransaction(scope: Scope, email: string, id: string): Promise<Transaction> {
    const transaction = await deps.store.transactions.find(scope, id);
    const owner = [transaction?.email, transaction?.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
    if (!transaction || !owner.includes(email.toLowerCase())) throw notFound(`Transaction ${id}`);
    return transaction;
  }

  return {
    async overview(scope: Scope, email: string): Promise<PortalItem[]> {
      const transactions = await deps.store.transactions.listByEmail(scope, email);
      return Promise.all(
        transactions.map(async (transaction) => {
          const method = transaction.paymentMethodId ? await deps.store.paymentMethods.find(transaction.paymentMethodId) : undefined;
          return {
            transaction,
            entries: (await deps.store.entries.listForTransaction(transaction.id)).filter((e) => e.invoiceNumber != null),
            licence: (await deps.store.licences.keyOf(scope, transaction.id)) ?? null,
            card: method ? { brand: method.brand, last4: method.last4, expMonth: method.expMonth, expYear: method.expYear } : null,
          };
        }),
      );
    },

    async cancel(scope: Scope, email: string, id: string) {
      await ownTransaction(scope, email, id);
      return deps.transactions.cancel(scope, id, 'CUSTOMER');
    },

    /**
     * Saves a new card for a subscription or vaulted method. A subscription whose renewal was
     * declined is retried with it at the worker's next run instead of waiting for the next retry date.
     */
    async updateCard(scope: Scope, email: string, id: string, card: CardInput): Promise<CardUpdate> {
      const current = await ownTransaction(scope, email, id);
      if (!canUpdateCard(current)) throw invalidState(`The card of this purchase cannot be changed: it is ${current.status}.`);
      requireCardExpiry(card);
      const gateway = deps.gateways[scope.environment];
      const now = deps.clock.now(scope);
      const tokenized = await gateway.tokenize(card, now);
      if (tokenized.status !== 'OK') return { status: 'DECLINED', message: tokenized.message };
      return deps.store.transaction(async (repos) => {
        const transaction = await repos.transactions.lock(scope, id);
        if (!transaction || !canUpdateCard(transaction))
          throw invalidState(`The card of this purchase cannot be changed: it is ${transaction?.status ?? 'gone'}.`);
        const methodId = newId('paymentMethod', now.getTime());
        await repos.paymentMethods.insert(scope, transaction.customerId, gateway.provider, { id: methodId, ...tokenized.card }, now.toISOString());
        const inDunning = (transaction.billing?.failedAttempts ?? 0) > 0 && transaction.nextCharge !== null;
        const patch = { paymentMethodId: methodId, ...(inDunning ? { nextCharge: now.toISOString() } : {}) };
        await repos.transactions.update(scope, id, patch);
        return { status: 'UPDATED', transaction: { ...transaction, ...patch } };
      });
    },
  };
}

export type CustomerPortalService = ReturnType<typeof customerPortalService>;
