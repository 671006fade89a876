import { sellerSettings, type SellerDetailsInput } from './domain/catalog/index.ts';
import { AppError } from './domain/errors.ts';
import type { SellerOfRecord, Vendor } from './domain/model.ts';

// SELLER_OF_RECORD and the operator's identity, for src/config.ts (which alone reads the environment and passes it here).

type Field = 'sellerName' | 'address' | 'country' | 'taxId';

/** One part of the operator's identity, checked as a vendor's seller details are; a message names the variable. */
function checked<F extends Field>(value: SellerDetailsInput[F], field: F, variable: string): Vendor[F] {
  if (value === undefined) return null;
  try {
    return sellerSettings({ [field]: value })[field] ?? null;
  } catch (err) {
    if (err instanceof AppError) throw new Error(`${variable}: ${err.message}`, { cause: err });
    throw err;
  }
}

/** SELLER_COUNTRY, checked, and who sells (SELLER_OF_RECORD). */
export function sellerOfRecordOf(env: NodeJS.ProcessEnv): {
  sellerCountry: string | undefined;
  sellerOfRecord: SellerOfRecord;
} {
  const sellerCountry = env.SELLER_COUNTRY?.trim().toUpperCase() || undefined;
  if (sellerCountry && !/^[A-Z]{2}$/.test(sellerCountry))
    throw new Error(`SELLER_COUNTRY must be a two-letter ISO 3166-1 code such as FR, not "${env.SELLER_COUNTRY}".`);
  return { sellerCountry, sellerOfRecord: sellerOfRecordIn(env, sellerCountry) };
}

/**
 * Who sells (docs/decisions.md §24): `vendor` (the default), each vendor for itself; `operator`, the
 * operator for every vendor, its identity from SELLER_NAME, SELLER_ADDRESS (lines separated by `|` or
 * new lines), SELLER_COUNTRY and SELLER_TAX_ID, each checked as a vendor's seller details are. One left
 * unset does not stop the start (the sandbox works without it): production checkout stays closed until
 * all four are set, and `opentill doctor` says which is missing.
 */
function sellerOfRecordIn(env: NodeJS.ProcessEnv, sellerCountry: string | undefined): SellerOfRecord {
  const mode = env.SELLER_OF_RECORD?.trim().toLowerCase() || 'vendor';
  if (mode === 'vendor') return Object.freeze({ mode, fallbackCountry: sellerCountry ?? null });
  if (mode !== 'operator')
    throw new Error(
      `SELLER_OF_RECORD must be vendor (the default: each vendor sells for itself, with its own details on invoices) or operator (the operator sells for every vendor, as SELLER_NAME, SELLER_ADDRESS, SELLER_COUNTRY, SELLER_TAX_ID), not "${env.SELLER_OF_RECORD}".`,
    );
  const identity = {
    name: checked(env.SELLER_NAME, 'sellerName', 'SELLER_NAME'),
    address: checked(env.SELLER_ADDRESS?.split(/\s*\|\s*|\r?\n/), 'address', 'SELLER_ADDRESS'),
    country: checked(sellerCountry, 'country', 'SELLER_COUNTRY'),
    taxId: checked(env.SELLER_TAX_ID, 'taxId', 'SELLER_TAX_ID'),
  };
  return Object.freeze({ mode, identity: Object.freeze(identity) });
}
