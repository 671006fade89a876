import type { Clock } from '../clock.ts';
import { invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Environment, Scope, Transaction, TransactionStatus } from '../model.ts';
import type { LicenceInstance, LicenceRecord, Repositories, Store } from '../ports.ts';
import { activationLimitOf } from '../activation-limit.ts';

/*
 * Where a licence key is activated (docs/decisions.md §40). A key alone names its licence: the
 * customer's app sends it without a credential; a vendor's credential reaches only its own keys.
 * The limit is kept by the store's conditional UPDATE of the licence's count, in the transaction
 * that adds the instance, so simultaneous activations never pass it.
 */

/** Licences count as ACTIVE while the customer has paid for the product (docs/decisions.md §6). */
const PAID_UP: readonly TransactionStatus[] = [
  'ONE_TIME_PAYMENT_STATUS_PAID',
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
  'VAULTED_STATUS_ACTIVE',
];

export const INSTANCE_NAME_MAX = 200;

/** Who asks: a vendor's credential (its scope), or the key alone (null) in an environment. */
export interface LicenceAccess {
  environment: Environment;
  scope: Scope | null;
}

export interface LicenceState {
  licence: string;
  status: 'ACTIVE' | 'INACTIVE';
  productId: string;
  transactionId: string;
  /** null: no limit. */
  activationLimit: number | null;
  activationsUsed: number;
  instances: { instanceId: string; instanceName: string; activatedAt: string }[];
}

export type LicenceActivationDeps = {
  store: Pick<Repositories, 'products' | 'transactions' | 'licenceActivations'> & Pick<Store, 'transaction'>;
  clock: Clock;
};
type Repos = Pick<Repositories, 'products' | 'transactions' | 'licenceActivations'>;

/** Keys are matched trimmed and in upper case, as check-licence matches them. */
export const normalizedKey = (key: string) => key.trim().toUpperCase();

/** Whether the key works: in force, not revoked, and its purchase paid up. */
export function licenceActive(licence: LicenceRecord, transaction: Pick<Transaction, 'status'> | undefined): boolean {
  return !licence.retired && licence.revokedAt === null && !!transaction && PAID_UP.includes(transaction.status);
}

const sameScope = (a: Scope, b: Scope) => a.vendorId === b.vendorId && a.environment === b.environment;

/** The licence a key names for whoever asks; another vendor's key is as unknown as a made-up one. */
export async function located(repos: Repos, access: LicenceAccess, key: string): Promise<LicenceRecord> {
  const licence = await repos.licenceActivations.byKey(access.environment, normalizedKey(key));
  if (!licence || (access.scope && !sameScope(access.scope, licence.scope))) throw notFound(`Licence key ${key}`);
  return licence;
}

/** The key's status, limit and instances, as the API shows them. */
export async function stateOf(repos: Repos, licence: LicenceRecord, key: string): Promise<LicenceState> {
  const [transaction, product] = await Promise.all([
    repos.transactions.find(licence.scope, licence.transactionId),
    repos.products.find(licence.scope, licence.productId),
  ]);
  const fresh = licence.retired
    ? licence
    : ((await repos.licenceActivations.byKey(licence.scope.environment, licence.key)) ?? licence);
  const instances = licence.retired ? [] : await repos.licenceActivations.instancesOf([licence.id]);
  return {
    licence: key,
    status: licenceActive(licence, transaction) ? 'ACTIVE' : 'INACTIVE',
    productId: licence.productId,
    transactionId: licence.transactionId,
    activationLimit: product && transaction ? activationLimitOf(product, transaction) : null,
    activationsUsed: licence.retired ? 0 : fresh.activationsUsed,
    instances: instances.map(presentInstance),
  };
}

const presentInstance = (i: LicenceInstance) => ({
  instanceId: i.id,
  instanceName: i.name,
  activatedAt: i.activatedAt,
});

function instanceName(input: string): string {
  const name = input.trim();
  if (!name) throw invalidInput('instanceName must name the machine or installation (1 to 200 characters).');
  if (name.length > INSTANCE_NAME_MAX) throw invalidInput(`instanceName has at most ${INSTANCE_NAME_MAX} characters.`);
  return name;
}

export function licenceActivationService(deps: LicenceActivationDeps) {
  return {
    /** The scope of the vendor whose key this is, for a request that sent the key alone; undefined when unknown. */
    async scopeOfKey(environment: Environment, key: string): Promise<Scope | undefined> {
      return (await deps.store.licenceActivations.byKey(environment, normalizedKey(key)))?.scope;
    },

    async read(access: LicenceAccess, key: string): Promise<LicenceState> {
      return stateOf(deps.store, await located(deps.store, access, key), key);
    },

    /**
     * Activates the key on an instance. The same name again is the same instance, and takes no new
     * slot (a reinstall, a retry); a new name takes a slot, or is refused once all are taken.
     */
    async activate(
      access: LicenceAccess,
      key: string,
      input: { instanceName: string },
    ): Promise<LicenceState & { instanceId: string; instanceName: string; activatedAt: string }> {
      const name = instanceName(input.instanceName);
      return deps.store.transaction(async (repos) => {
        const licence = await located(repos, access, key);
        const transaction = await repos.transactions.find(licence.scope, licence.transactionId);
        if (!licenceActive(licence, transaction))
          throw invalidState(
            `Licence key ${key} is inactive (refunded, cancelled, revoked or replaced by a reissued key): it cannot be activated.`,
          );
        const product = await repos.products.find(licence.scope, licence.productId);
        const limit = product && transaction ? activationLimitOf(product, transaction) : null;
        const instance = {
          id: newId('licenceInstance'),
          licenceId: licence.id,
          name,
          activatedAt: deps.clock.now(licence.scope).toISOString(),
        };
        // The instance first: a name already there is that instance again, and takes no slot.
        if (!(await repos.licenceActivations.insertInstance(instance))) {
          const existing = await repos.licenceActivations.instanceNamed(licence.id, name);
          return { ...(await stateOf(repos, licence, key)), ...presentInstance(existing ?? instance) };
        }
        if (!(await repos.licenceActivations.takeSlot(licence.id, limit)))
          throw invalidState(
            `Licence key ${key} is already activated on ${limit} instances, its limit: deactivate one (POST /v1/licences/{key}/deactivate) before activating another.`,
          );
        return { ...(await stateOf(repos, licence, key)), ...presentInstance(instance) };
      });
    },

    /** Frees the slot of one instance of the key; an instance the key does not have is not found. */
    async deactivate(access: LicenceAccess, key: string, input: { instanceId: string }): Promise<LicenceState> {
      return deps.store.transaction(async (repos) => {
        const licence = await located(repos, access, key);
        if (licence.retired || !(await repos.licenceActivations.removeInstance(licence.id, input.instanceId)))
          throw notFound(`Instance ${input.instanceId} of licence key ${key}`);
        return stateOf(repos, licence, key);
      });
    },
  };
}
