import { AppError } from './errors.ts';
import type { Environment, SellerIdentity, SellerOfRecord, Vendor } from './model.ts';

/**
 * Who reaches production (docs/decisions.md §19, "Who may sign up"). A vendor the operator made (with
 * the CLI, the demo, or an invitation) does. One that signed up in an open panel works in the sandbox
 * only until the operator runs `opentill vendor enable-production`: a stranger must not take real
 * money into the operator's processor account. Every way into production asks this one rule: API
 * authentication and issuing credentials, the panel, the admin tool and the hosted checkout.
 */
export function reaches(vendor: Pick<Vendor, 'productionEnabled'>, environment: Environment): boolean {
  return environment === 'sandbox' || vendor.productionEnabled;
}

/** What a vendor that does not reach production is told, and what to ask the operator. */
export const productionNotEnabled = (vendorId: string) =>
  new AppError(
    'FORBIDDEN',
    `Production is not enabled for vendor ${vendorId}: an account made by signing up works in the sandbox until the operator of this server enables production for it (opentill vendor enable-production --vendor ${vendorId}).`,
  );

type SellerDetails = Pick<Vendor, 'sellerName' | 'address' | 'country' | 'taxId'>;

/** A part of the seller's identity, in the words the panel and `opentill doctor` list it with. */
export type IdentityField = 'legal name' | 'address' | 'country' | 'tax ID';

/** Whose identity a vendor's sales carry: its own (SELLER_OF_RECORD=vendor) or the operator's. */
export interface SellerOf {
  seller: 'vendor' | 'operator';
  identity: SellerIdentity;
  /** The parts of that identity not set. */
  missing: IdentityField[];
}

/**
 * The seller of a vendor's sales (docs/decisions.md §24): the vendor itself, with the details of its
 * Settings (its account name does not stand in for a legal name), or the operator for every vendor.
 */
export function sellerOf(vendor: SellerDetails, sellerOfRecord: SellerOfRecord): SellerOf {
  if (sellerOfRecord.mode === 'operator') return withMissing('operator', sellerOfRecord.identity);
  const { sellerName: name, address, country, taxId } = vendor;
  return withMissing('vendor', { name, address, country, taxId });
}

/** The operator's identity and what it lacks, when it sells for every vendor; undefined when each vendor sells itself. */
export const operatorSeller = (sellerOfRecord: SellerOfRecord): SellerOf | undefined =>
  sellerOfRecord.mode === 'operator' ? withMissing('operator', sellerOfRecord.identity) : undefined;

function withMissing(seller: SellerOf['seller'], identity: SellerIdentity): SellerOf {
  const missing: IdentityField[] = [];
  if (!identity.name?.trim()) missing.push('legal name');
  if (!identity.address?.some((line) => line.trim())) missing.push('address');
  if (!identity.country) missing.push('country');
  if (!identity.taxId?.trim()) missing.push('tax ID');
  return { seller, identity, missing };
}

/** The seller's country for tax (reverse charge, the returns): the identity's, else SELLER_COUNTRY for a vendor that set none. */
export function sellerCountryOf(
  vendor: Pick<Vendor, 'country'> | undefined,
  sellerOfRecord: SellerOfRecord,
): string | null {
  if (sellerOfRecord.mode === 'operator') return sellerOfRecord.identity.country;
  return vendor?.country || sellerOfRecord.fallbackCountry;
}

/** A new purchase refused because of its seller; `title` heads the checkout's page. */
export class SaleRefused extends AppError {
  /** ARCHIVED: the product, not its seller (docs/decisions.md §28). */
  readonly reason: 'SUSPENDED' | 'IDENTITY_INCOMPLETE' | 'ARCHIVED';
  readonly title: string;
  constructor(reason: SaleRefused['reason'], title: string, message: string) {
    super('FORBIDDEN', message);
    this.reason = reason;
    this.title = title;
  }
}

/**
 * Whether a vendor's checkout may start a new purchase (or charge a stored card) now, asked by every
 * way a new sale starts; undefined when it may. Suspended: refused in both environments. Production:
 * refused until the seller's identity is complete, so the first invoice names its seller and the first
 * sale to an EU business is reverse-charged. The sandbox is never held to the identity.
 */
export function saleRefusal(
  vendor: SellerDetails & Pick<Vendor, 'suspension'>,
  environment: Environment,
  sellerOfRecord: SellerOfRecord,
): SaleRefused | undefined {
  if (vendor.suspension)
    return new SaleRefused(
      'SUSPENDED',
      'This seller is not taking purchases',
      'The operator of this payment platform has suspended this seller, so it takes no new purchases for now. Nothing has been charged; purchases made before are not affected.',
    );
  if (environment === 'sandbox') return undefined;
  const { seller, missing } = sellerOf(vendor, sellerOfRecord);
  if (missing.length === 0) return undefined;
  return new SaleRefused(
    'IDENTITY_INCOMPLETE',
    'This seller cannot take payments yet',
    seller === 'operator'
      ? `This seller cannot take payments yet: the platform operator, who sells for it, has not set its ${missing.join(', ')}. Nothing has been charged.`
      : `This seller cannot take payments yet: its ${missing.join(', ')} must be set first (the panel's Settings, or opentill vendor settings). Nothing has been charged.`,
  );
}
