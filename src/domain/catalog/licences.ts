import { notFound } from '../errors.ts';
import type { LicenceStatus, Scope, TransactionStatus } from '../model.ts';
import type { Repositories } from '../ports.ts';

/** Licences count as ACTIVE while the customer has paid for the product (docs/decisions.md §6). */
const ACTIVE_STATUSES: readonly TransactionStatus[] = [
  'ONE_TIME_PAYMENT_STATUS_PAID',
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
  'VAULTED_STATUS_ACTIVE',
];

export function licenceService(deps: { store: Pick<Repositories, 'products' | 'licences' | 'transactions'> }) {
  return {
    async check(
      scope: Scope,
      productId: string,
      key: string,
    ): Promise<{ status: LicenceStatus; productId: string; transactionId: string | null; licence: string }> {
      const product = await deps.store.products.find(scope, productId);
      if (!product) throw notFound(`Product ${productId}`);
      const licence = await deps.store.licences.find(scope, productId, key.trim().toUpperCase());
      if (!licence) return { status: 'NOT_FOUND', productId, transactionId: null, licence: key };
      const transaction = await deps.store.transactions.find(scope, licence.transactionId);
      const status: LicenceStatus = transaction && ACTIVE_STATUSES.includes(transaction.status) ? 'ACTIVE' : 'INACTIVE';
      return { status, productId, transactionId: licence.transactionId, licence: key };
    },
  };
}
