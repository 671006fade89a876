import { notFound } from '../errors.ts';
import type { Scope, Vendor, VendorSuspension } from '../model.ts';
import { productionNotEnabled, reaches, saleRefusal, sellerOf, type SellerOf } from '../production-access.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { platformFeeOf } from './vendors.ts';

/**
 * The vendor of the scope, if its checkout may start a new purchase there now (docs/decisions.md §24);
 * else NOT_FOUND, FORBIDDEN (production not enabled), or SaleRefused (suspended; production without
 * the seller's whole identity). The hosted checkout's page, its purchases and charges of stored cards ask it.
 */
export async function requireOpenForSale(deps: CatalogDeps, scope: Scope): Promise<Vendor> {
  const vendor = await deps.store.vendors.find(scope.vendorId);
  if (!vendor) throw notFound(`Vendor ${scope.vendorId}`);
  if (!reaches(vendor, scope.environment)) throw productionNotEnabled(vendor.id);
  const refusal = saleRefusal(vendor, scope.environment, deps.sellerOfRecord);
  if (refusal) throw refusal;
  return vendor;
}

/** A vendor as the operator's console and `opentill vendor list` show it. */
export interface VendorStatus {
  vendor: Vendor;
  /** False: an open sign-up the operator has not approved for production yet. */
  productionEnabled: boolean;
  suspension: VendorSuspension | null;
  /** Whose identity its sales carry, and what of it is missing (its production checkout is closed while anything is). */
  seller: SellerOf;
  /** The platform's fee in force, and whether it is the vendor's own. */
  fee: { fee: string; own: boolean };
}

export function vendorStatus(deps: Pick<CatalogDeps, 'sellerOfRecord' | 'platformFee'>, vendor: Vendor): VendorStatus {
  return {
    vendor,
    productionEnabled: vendor.productionEnabled,
    suspension: vendor.suspension,
    seller: sellerOf(vendor, deps.sellerOfRecord),
    fee: platformFeeOf(deps, vendor),
  };
}

/** Every vendor with its state, oldest first. */
export async function vendorStatuses(deps: CatalogDeps): Promise<VendorStatus[]> {
  return (await deps.store.vendors.list()).map((vendor) => vendorStatus(deps, vendor));
}
