import { invalidInput, notFound } from '../errors.ts';
import { checkedPlatformFee, formatPlatformFee } from '../money/index.ts';
import { newId } from '../ids.ts';
import type { Scope, Vendor } from '../model.ts';
import { productionNotEnabled, reaches } from '../production-access.ts';
import { requireEmail } from '../validation.ts';
import type { CatalogDeps } from './catalog-deps.ts';

/**
 * What makes a vendor: a name and an e-mail. `productionEnabled` is false only for a vendor that signs up
 * in an open panel (docs/decisions.md §19); the operator's vendors (CLI, demo, invitations) reach production.
 */
export interface NewVendor {
  name: string;
  email: string;
  productionEnabled?: boolean;
}

/** A new vendor, checked, not stored yet. */
export function newVendor(deps: Pick<CatalogDeps, 'clock'>, input: NewVendor): Vendor {
  const name = input.name?.trim();
  if (!name) throw invalidInput('A vendor needs a name.');
  return {
    id: newId('vendor'),
    name,
    email: requireEmail(input.email),
    createdAt: deps.clock.now().toISOString(),
    productionEnabled: input.productionEnabled ?? true,
    allowConversion: true,
    adminFrameOrigins: [],
    sellerName: null,
    address: null,
    country: null,
    taxId: null,
    supportEmail: null,
    logo: null,
    emails: { senderName: null, replyTo: null, off: [] },
    platformFee: null,
    suspension: null,
  };
}

export async function createVendor(deps: CatalogDeps, input: NewVendor): Promise<Vendor> {
  const vendor = newVendor(deps, input);
  await deps.store.vendors.insert(vendor);
  return vendor;
}

/** The vendor, or NOT_FOUND: what every command and page that names a vendor checks first. */
export async function requireVendor(deps: CatalogDeps, id: string): Promise<Vendor> {
  const vendor = await deps.store.vendors.find(id);
  if (!vendor) throw notFound(`Vendor ${id}`);
  return vendor;
}

/** The vendor of the scope, if it reaches the scope's environment; else FORBIDDEN, saying what to ask the operator. */
export async function requireEnvironment(deps: CatalogDeps, scope: Scope): Promise<Vendor> {
  const vendor = await deps.store.vendors.find(scope.vendorId);
  if (!vendor) throw notFound(`Vendor ${scope.vendorId}`);
  if (!reaches(vendor, scope.environment)) throw productionNotEnabled(vendor.id);
  return vendor;
}

/** The operator lets a vendor reach production (`opentill vendor enable-production`); `changed` is false when it already did. */
export async function enableProduction(
  deps: CatalogDeps,
  vendorId: string,
): Promise<{ vendor: Vendor; changed: boolean }> {
  const vendor = await deps.store.vendors.find(vendorId);
  if (!vendor) throw notFound(`Vendor ${vendorId}`);
  if (vendor.productionEnabled) return { vendor, changed: false };
  await deps.store.vendors.updateSettings(vendorId, { productionEnabled: true });
  return { vendor: { ...vendor, productionEnabled: true }, changed: true };
}

/**
 * The operator sets a vendor's own platform fee (`opentill vendor fee`), or with null returns it to the
 * default. It applies to payments booked from now on; no entry booked before changes.
 */
export async function setPlatformFee(
  deps: CatalogDeps,
  vendorId: string,
  fee: string | null,
): Promise<{ vendor: Vendor; fee: string; own: boolean }> {
  const vendor = await requireVendor(deps, vendorId);
  const platformFee = fee === null ? null : formatPlatformFee(checkedPlatformFee(fee, deps.rates));
  await deps.store.vendors.updateSettings(vendorId, { platformFee });
  return { vendor: { ...vendor, platformFee }, ...platformFeeOf(deps, { platformFee }) };
}

/** The fee in force for a vendor, as the operator writes fees, and whether it is the vendor's own. */
export function platformFeeOf(deps: Pick<CatalogDeps, 'platformFee'>, vendor: Pick<Vendor, 'platformFee'>) {
  return vendor.platformFee
    ? { fee: vendor.platformFee, own: true }
    : { fee: formatPlatformFee(deps.platformFee), own: false };
}
