import type { Clock } from '../clock.ts';
import { notFound } from '../errors.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import type { Scope } from '../model.ts';
import type { LicenceRecord, Repositories, Store } from '../ports.ts';
import { newLicenceKey } from './licence-keys.ts';
import { stateOf, type LicenceState } from './licence-activations.ts';

/*
 * What a vendor does to a key from the panel, and a customer from the management page
 * (docs/decisions.md §40): revoke it (inactive; its purchase untouched), reissue it (a new key; the
 * old one inactive for good, its instances dropped), free one of its instances.
 */

export type ManagedLicence = LicenceState & { revokedAt: string | null };

export type LicenceManagementDeps = {
  store: Pick<Repositories, 'products' | 'transactions' | 'licenceActivations' | 'customerEmails'> &
    Pick<Store, 'transaction'>;
  clock: Clock;
  emails?: EmailRecorder | undefined;
};

type Repos = Pick<Repositories, 'products' | 'transactions' | 'licenceActivations' | 'customerEmails'>;

async function licenceOf(repos: Repos, scope: Scope, transactionId: string): Promise<LicenceRecord> {
  const licence = await repos.licenceActivations.byTransaction(scope, transactionId);
  if (!licence) throw notFound(`A licence key of transaction ${transactionId}`);
  return licence;
}

export function licenceManagement(deps: LicenceManagementDeps) {
  return {
    /** The key a purchase issued, with its state and instances; undefined when it issued none. */
    async ofPurchase(scope: Scope, transactionId: string): Promise<ManagedLicence | undefined> {
      const licence = await deps.store.licenceActivations.byTransaction(scope, transactionId);
      if (!licence) return undefined;
      return { ...(await stateOf(deps.store, licence, licence.key)), revokedAt: licence.revokedAt };
    },

    /** Makes the key inactive; the purchase is untouched. Revoking it again changes nothing. */
    async revoke(scope: Scope, transactionId: string): Promise<void> {
      await deps.store.transaction(async (repos) => {
        const licence = await licenceOf(repos, scope, transactionId);
        await repos.licenceActivations.revoke(licence.id, deps.clock.now(scope).toISOString());
      });
    },

    /**
     * A new key for the purchase: the old one answers INACTIVE from now on and its instances are
     * dropped (the customer activates the new key again); a revocation is lifted. The customer is
     * e-mailed the new key when e-mails are on. Answers the new key.
     */
    async reissue(scope: Scope, transactionId: string): Promise<string> {
      return deps.store.transaction(async (repos) => {
        const licence = await licenceOf(repos, scope, transactionId);
        const key = newLicenceKey();
        const at = deps.clock.now(scope).toISOString();
        // A reissue that raced this one replaced the key first: this one changes nothing more.
        if (!(await repos.licenceActivations.reissue(licence.id, licence.key, key, at))) {
          return (await licenceOf(repos, scope, transactionId)).key;
        }
        await deps.emails?.record(repos, [
          { kind: 'LICENCE_REISSUED', scope, key: `LICENCE_REISSUED:${licence.key}`, facts: { transactionId } },
        ]);
        return key;
      });
    },

    /** Frees one instance of a purchase's key (the management page, the panel). */
    async freeInstance(scope: Scope, transactionId: string, instanceId: string): Promise<void> {
      await deps.store.transaction(async (repos) => {
        const licence = await licenceOf(repos, scope, transactionId);
        if (!(await repos.licenceActivations.removeInstance(licence.id, instanceId)))
          throw notFound(`Instance ${instanceId}`);
      });
    },
  };
}
