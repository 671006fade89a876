import { activationLimitOf } from '../activation-limit.ts';
import { notFound } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import { ownTransaction } from './own-transactions.ts';

/** Where a purchase's licence key is activated, as the management page lists it (docs/decisions.md §40). */
export interface LicenceUse {
  used: number;
  /** null: no limit. */
  limit: number | null;
  instances: { id: string; name: string; activatedAt: string }[];
}

/** The activations of the purchase's key; null when it has none in force (no key, or a revoked one). */
export async function licenceUseOf(
  deps: Pick<PortalDeps, 'store'>,
  scope: Scope,
  transaction: Transaction,
): Promise<LicenceUse | null> {
  const licence = await deps.store.licenceActivations.byTransaction(scope, transaction.id);
  if (!licence || licence.revokedAt) return null;
  const [product, instances] = await Promise.all([
    deps.store.products.find(scope, transaction.productId),
    deps.store.licenceActivations.instancesOf([licence.id]),
  ]);
  return {
    used: licence.activationsUsed,
    limit: product ? activationLimitOf(product, transaction) : null,
    instances: instances.map((i) => ({ id: i.id, name: i.name, activatedAt: i.activatedAt })),
  };
}

/** Frees one instance of the customer's own purchase's key; anyone else's, or an unknown one, is not found. */
export async function freeInstance(
  deps: Pick<PortalDeps, 'store'>,
  scope: Scope,
  email: string,
  transactionId: string,
  instanceId: string,
): Promise<void> {
  const transaction = await ownTransaction(deps, scope, email, transactionId);
  await deps.store.transaction(async (repos) => {
    const licence = await repos.licenceActivations.byTransaction(scope, transaction.id);
    if (!licence || !(await repos.licenceActivations.removeInstance(licence.id, instanceId)))
      throw notFound(`Activation ${instanceId}`);
  });
}
