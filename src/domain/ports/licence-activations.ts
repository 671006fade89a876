import type { Environment, Scope } from '../model.ts';

// Where licence keys are activated, and what the vendor did to a key (docs/decisions.md §40).

/** A licence as activations see it. */
export interface LicenceRecord {
  id: string;
  scope: Scope;
  productId: string;
  transactionId: string;
  /** The key in force; for a key a reissue replaced, the one that replaced it. */
  key: string;
  activationsUsed: number;
  revokedAt: string | null;
  createdAt: string;
  /** Looked up by a key a reissue replaced: that key is inactive for good. */
  retired: boolean;
}

export interface LicenceInstance {
  id: string;
  licenceId: string;
  name: string;
  activatedAt: string;
}

export interface LicenceActivationRepository {
  /** The licence a key names in an environment, the key in force or one a reissue replaced; any vendor's. */
  byKey(environment: Environment, key: string): Promise<LicenceRecord | undefined>;
  /** The licence a purchase issued. */
  byTransaction(scope: Scope, transactionId: string): Promise<LicenceRecord | undefined>;
  /** The licences of these purchases, by transaction id. */
  byTransactions(scope: Scope, transactionIds: string[]): Promise<Map<string, LicenceRecord>>;
  /** Where these licences are activated, oldest first. */
  instancesOf(licenceIds: string[]): Promise<LicenceInstance[]>;
  instanceNamed(licenceId: string, name: string): Promise<LicenceInstance | undefined>;
  /**
   * Takes one activation slot if fewer than `limit` are taken (null: no limit), in one conditional
   * UPDATE, so that simultaneous activations cannot both take the last one. False: all are taken.
   */
  takeSlot(licenceId: string, limit: number | null): Promise<boolean>;
  /**
   * Adds an instance; false when the licence already has one of that name (a simultaneous activation
   * of the same name waits for the other to commit, then adds nothing).
   */
  insertInstance(instance: LicenceInstance): Promise<boolean>;
  /** Removes an instance and frees its slot; false when the licence has no such instance. */
  removeInstance(licenceId: string, instanceId: string): Promise<boolean>;
  /** Marks the licence revoked (`at`); false when it already was. */
  revoke(licenceId: string, at: string): Promise<boolean>;
  /**
   * Replaces the key `oldKey` with `newKey`, keeping the old one as retired, dropping every instance
   * and clearing a revocation; false when the key in force is no longer `oldKey` (a reissue raced it).
   */
  reissue(licenceId: string, oldKey: string, newKey: string, at: string): Promise<boolean>;
}
