import { notFound } from '../errors.ts';
import type { LicenceStatus, Scope } from '../model.ts';
import type { Repositories, Store } from '../ports.ts';
import { activationLimitOf } from '../activation-limit.ts';
import { licenceActivationService, licenceActive, normalizedKey } from './licence-activations.ts';
import { licenceManagement, type LicenceManagementDeps } from './licence-management.ts';

export interface LicenceCheck {
  status: LicenceStatus;
  productId: string;
  transactionId: string | null;
  licence: string;
  /** opentill's own: instances the key is activated on, and its limit (null: none); null when NOT_FOUND. */
  activations: { used: number; limit: number | null } | null;
}

export function licenceService(
  deps: LicenceManagementDeps & { store: Pick<Repositories, 'licences'> & Pick<Store, 'transaction'> },
) {
  return {
    /** GET /v1/check-licence: ACTIVE while paid up, not revoked and not replaced (docs/decisions.md §6, §40). */
    async check(scope: Scope, productId: string, key: string): Promise<LicenceCheck> {
      const product = await deps.store.products.find(scope, productId);
      if (!product) throw notFound(`Product ${productId}`);
      const licence = await deps.store.licenceActivations.byKey(scope.environment, normalizedKey(key));
      if (!licence || licence.scope.vendorId !== scope.vendorId || licence.productId !== productId)
        return { status: 'NOT_FOUND', productId, transactionId: null, licence: key, activations: null };
      const transaction = await deps.store.transactions.find(scope, licence.transactionId);
      const limit = transaction ? activationLimitOf(product, transaction) : null;
      return {
        status: licenceActive(licence, transaction) ? 'ACTIVE' : 'INACTIVE',
        productId,
        transactionId: licence.transactionId,
        licence: key,
        activations: { used: licence.retired ? 0 : licence.activationsUsed, limit },
      };
    },
    ...licenceActivationService(deps),
    ...licenceManagement(deps),
  };
}
