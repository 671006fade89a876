import type { Generated } from 'kysely';

// The tables and columns of licence activations (migration 0035, docs/decisions.md §40).

/** A purchase's licence key (migration 0001), with what migration 0035 adds. */
export interface LicencesTable extends LicenceActivationColumns {
  id: string;
  vendor_id: string;
  environment: string;
  product_id: string;
  transaction_id: string;
  licence_key: string;
  created_at: string;
}

/** Columns migration 0035 adds to `licences`. */
export interface LicenceActivationColumns {
  /** Instances the key is activated on: raised only under the limit, by one conditional UPDATE. */
  activations_used: Generated<number>;
  revoked_at: string | null;
}

export interface LicenceInstancesTable {
  id: string;
  licence_id: string;
  name: string;
  activated_at: string;
}

export interface RetiredLicenceKeysTable {
  licence_key: string;
  licence_id: string;
  retired_at: string;
}

export interface LicenceActivationTables {
  licence_instances: LicenceInstancesTable;
  retired_licence_keys: RetiredLicenceKeysTable;
}

/** The column migration 0035 adds to `products`. */
export interface ProductActivationColumns {
  /** Instances per licence key; null is no limit. */
  activation_limit: number | null;
}
