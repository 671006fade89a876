/** The product's vocabulary: these are the values clients see on the wire. */

export type Environment = 'production' | 'sandbox';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox'];

/** Who is asking: every record belongs to one vendor in one environment. */
export interface Scope {
  readonly vendorId: string;
  readonly environment: Environment;
}

export type TransactionType = 'ONETIME' | 'SUBSCRIPTION' | 'VAULTED';
export const TRANSACTION_TYPES: readonly TransactionType[] = ['ONETIME', 'SUBSCRIPTION', 'VAULTED'];

export type TransactionStatus =
  | 'TRANSACTION_STATUS_PENDING'
  | 'TRANSACTION_STATUS_REFUNDED'
  | 'ONE_TIME_PAYMENT_STATUS_PAID'
  | 'SUBSCRIPTION_STATUS_ACTIVE'
  | 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL'
  | 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'
  | 'SUBSCRIPTION_STATUS_CANCELLED'
  | 'VAULTED_STATUS_ACTIVE'
  | 'VAULTED_STATUS_INACTIVE';

/**
 * A subscription in one of these has stopped renewing: cancelled (to the end of its period or at
 * once), ended by a failed renewal, refunded or charged back. Its cancellation date is the first
 * moment it entered one; back in a live status (a failed renewal paid after all) it has none.
 */
export const STOPPED_SUBSCRIPTION_STATUSES = [
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
  'SUBSCRIPTION_STATUS_CANCELLED',
  'TRANSACTION_STATUS_REFUNDED',
] as const;
export const LIVE_SUBSCRIPTION_STATUSES = ['SUBSCRIPTION_STATUS_ACTIVE', 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL'] as const;

export type ChargeFrequency = 'UNKNOWN' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'HALF_YEARLY' | 'YEARLY';
export const RECURRING_FREQUENCIES: readonly ChargeFrequency[] = [
  'DAILY',
  'WEEKLY',
  'MONTHLY',
  'HALF_YEARLY',
  'YEARLY',
];

export type WhoCanceled = 'TRANSACTION_CLOUD_ADMIN' | 'VENDOR' | 'CUSTOMER' | 'NEXT_CHARGE_FAILED' | 'WALLET_PROVIDER';

export type EntryType =
  | 'SUBSCRIPTION_PAYMENT'
  | 'VAULTED_PAYMENT'
  | 'ONETIME_PAYMENT'
  | 'SUBSCRIPTION_REFUND'
  | 'ONETIME_PAYMENT_REFUND'
  | 'CHARGEBACK';

export const PAYMENT_ENTRY_TYPES: readonly EntryType[] = ['SUBSCRIPTION_PAYMENT', 'VAULTED_PAYMENT', 'ONETIME_PAYMENT'];

export type ChangeFlag =
  | 'CHANGED_STATUS_NEW'
  | 'CHANGED_STATUS_RENEWED'
  | 'CHANGED_STATUS_CANCELLED'
  | 'CHANGED_STATUS_REFUNDED'
  | 'CHANGED_STATUS_TRIAL'
  | 'CHANGED_STATUS_VAULTED_ACTIVATION'
  | 'CHANGED_STATUS_VAULTED_DEACTIVATION';

export interface Vendor {
  id: string;
  name: string;
  email: string;
  createdAt: string;
  /**
   * Whether the vendor reaches production at all (API, panel, checkout, admin tool): false for a vendor
   * that signed up in an open panel, until the operator enables it (src/domain/production-access.ts).
   */
  productionEnabled: boolean;
  /** Customers may pay in their own currency converted from USD, not only in the listed ones. */
  allowConversion: boolean;
  /** Origins (scheme://host[:port]) whose pages may frame the admin tool; none by default. */
  adminFrameOrigins: string[];
  /** The legal name invoices show as the seller; the vendor's name when null. */
  sellerName: string | null;
  /** The seller's postal address, one entry per line. */
  address: string[] | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  /** VAT or other tax id, as the seller writes it. */
  taxId: string | null;
  /** Where buyers write with questions; invoices show it. */
  supportEmail: string | null;
  /** A small PNG or JPEG as a data URL (`data:image/png;base64,...`), at most 100 KB of image. */
  logo: string | null;
  /** How the customer e-mails go out, when the operator configured SMTP. */
  emails: VendorEmailSettings;
  /** The platform's fee on this vendor's payments as the operator wrote it (`3%+0.30USD`); null: PLATFORM_FEE. */
  platformFee: string | null;
  /** Set while the operator has suspended the vendor (`opentill vendor suspend`): its checkout takes no new purchase. */
  suspension: VendorSuspension | null;
}

/** A vendor's suspension by the operator (docs/decisions.md §24). */
export interface VendorSuspension {
  since: string;
  reason: string | null;
  /** The operator also stopped the vendor's renewals: none is charged (nor cancelled) until it resumes the vendor. */
  renewalsStopped: boolean;
}

/** The seller's legal identity as invoices show it; a production checkout needs all four (docs/decisions.md §24). */
export interface SellerIdentity {
  name: string | null;
  address: string[] | null;
  country: string | null;
  taxId: string | null;
}

/**
 * Who sells (SELLER_OF_RECORD): each vendor for itself, with its own seller details (SELLER_COUNTRY the
 * country of a vendor that set none, for reverse charge in the sandbox); or the operator for every
 * vendor, as merchant of record, with its identity from SELLER_NAME, SELLER_ADDRESS, SELLER_COUNTRY and SELLER_TAX_ID.
 */
export type SellerOfRecord =
  { mode: 'vendor'; fallbackCountry: string | null } | { mode: 'operator'; identity: SellerIdentity };

/** The e-mails opentill sends customers (when SMTP is configured), by the event that causes each. */
export type CustomerEmailKind =
  | 'RECEIPT'
  | 'TRIAL_ENDING'
  | 'RENEWAL_UPCOMING'
  | 'RENEWED'
  | 'PAYMENT_FAILED'
  | 'ACTION_REQUIRED'
  | 'CANCELLED'
  | 'REFUNDED'
  | 'LICENCE_REISSUED';
export const CUSTOMER_EMAIL_KINDS: readonly CustomerEmailKind[] = [
  'RECEIPT',
  'TRIAL_ENDING',
  'RENEWAL_UPCOMING',
  'RENEWED',
  'PAYMENT_FAILED',
  'ACTION_REQUIRED',
  'CANCELLED',
  'REFUNDED',
  'LICENCE_REISSUED',
];

export interface VendorEmailSettings {
  /** The sender's display name; the vendor's name when null. The address is the operator's SMTP_FROM. */
  senderName: string | null;
  /** Where customers' replies go; the support e-mail, else the vendor's e-mail, when null. */
  replyTo: string | null;
  /** The kinds this vendor does not send; every kind is on until turned off. */
  off: CustomerEmailKind[];
}

/** What `updateVendorSettings` may change: undefined leaves a setting, null clears a seller detail. */
export type VendorSettings = Partial<Omit<Vendor, 'id' | 'name' | 'email' | 'createdAt'>>;

export interface Product {
  id: string;
  vendorId: string;
  environment: Environment;
  name: string;
  description: string;
  type: TransactionType;
  chargeFrequency: ChargeFrequency;
  trialDays: number;
  issuesLicences: boolean;
  /** Net prices in minor units by currency; USD is always present. */
  prices: Record<string, number>;
  createdAt: string;
  /** When the vendor archived it: no new sale starts on it, what was sold goes on (docs/decisions.md §28). Null: on sale. */
  archivedAt: string | null;
  /** The image's version, in its public URL (docs/decisions.md §42); absent or null: no image. */
  imageVersion?: string | null;
  /** How many instances each licence key may be activated on (docs/decisions.md §40); null: no limit. */
  activationLimit: number | null;
  /** Sold per seat (docs/decisions.md §39): the quantity's range and volume tiers. Absent or null: one per purchase. */
  seats?: SeatPricing | null;
}

/** A per-seat product's quantity range and volume tiers; `prices` is the unit price below the first tier. */
export interface SeatPricing {
  minQuantity: number;
  maxQuantity: number;
  /** Ascending by `fromQuantity`: from that total on, every seat costs the tier's net prices (USD required). */
  tiers: SeatTier[];
}

export interface SeatTier {
  fromQuantity: number;
  prices: Record<string, number>;
}

export interface CustomizedProduct {
  id: string;
  vendorId: string;
  environment: Environment;
  productId: string;
  description: string | null;
  payload: string | null;
  transactionIdToMigrate: string | null;
  expiresAt: string | null;
  userFirstName: string | null;
  userLastName: string | null;
  userMail: string | null;
  prices: Record<string, number>;
  createdAt: string;
  /** Seats the link sells, fixed (docs/decisions.md §39); absent or null: the buyer chooses, as on the product's checkout. */
  quantity?: number | null;
}

/** A discount code of one product: a percentage, or fixed amounts by currency (USD required). */
export interface Coupon {
  id: string;
  vendorId: string;
  environment: Environment;
  productId: string;
  /** Upper case; customers may type it in any case. */
  code: string;
  /** Percent off the net price as a decimal string ("25", "12.5"), or null for a fixed discount. */
  percentOff: string | null;
  /** Fixed discount in minor units by currency; empty for a percentage. */
  amountsOff: Record<string, number>;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  /** How long it lasts, and its caps and restrictions (docs/decisions.md §38). */
  duration: CouponDuration;
  /** Billing periods discounted for 'repeating' (the first payment is period 1); null otherwise. */
  durationPeriods: number | null;
  maxRedemptions: number | null;
  /** Redemptions held (payment open) or used. */
  redemptions: number;
  maxPerCustomer: number | null;
  /** Other products of the vendor it also applies to, beside `productId`. */
  otherProductIds: string[];
  /** The charge frequencies it applies to; null: all. */
  frequencies: ChargeFrequency[] | null;
  firstPurchaseOnly: boolean;
  startsAt: string | null;
}

/** 'once': the first payment; 'forever': every payment; 'repeating': the first `durationPeriods`. */
export type CouponDuration = 'once' | 'forever' | 'repeating';

export interface Transaction {
  id: string;
  vendorId: string;
  environment: Environment;
  productId: string;
  customizedProductId: string | null;
  customerId: string;
  paymentMethodId: string | null;
  email: string;
  assignedEmail: string | null;
  productName: string;
  type: TransactionType;
  status: TransactionStatus;
  chargeFrequency: ChargeFrequency;
  country: string;
  region: string | null;
  currency: string;
  netMinor: number;
  taxMinor: number;
  netUsdMinor: number;
  taxRate: string;
  taxName: string;
  payload: string | null;
  whoCanceled: WhoCanceled | null;
  lastCharge: string | null;
  nextCharge: string | null;
  createdAt: string;
  changeFlag: ChangeFlag | null;
  changedAt: string | null;
  /** A business buyer's company name, as typed at checkout; null for a consumer. */
  businessName: string | null;
  /** A business buyer's VAT ID, normalized (country prefix, no spaces), when it was valid for its country; else null. */
  buyerVatId: string | null;
  /** The buyer's ZIP or postal code as given at checkout: what US renewals are taxed by. */
  postalCode: string | null;
  /** A business buyer's street and city as typed (lines separated by newlines), for the invoice; null for a consumer. */
  buyerAddress: string | null;
  /** EU reverse charge applied: 0% VAT charged, the buyer accounts for it (the invoice must say so). */
  reverseCharge: boolean;
  /** The buyer's language, a supported locale tag (src/i18n); null is English. Renewal e-mails and invoices use it. */
  locale: string | null;
  /** The name invoices are made out to: first and last name at checkout, editable in the portal; null when none was given. */
  buyerName: string | null;
  /** What the customer gave as the reason when cancelling in the portal; null when none. */
  cancelReason: string | null;
  /** Seats bought (docs/decisions.md §39): 1 unless the product is sold per seat. Net amounts are for all of them. */
  quantity: number;
  /** The coupon it was bought with (docs/decisions.md §38): renewals apply it for its duration. */
  couponId?: string | null;
  /** A subscription's billing schedule; absent for one-time payments and vaulted methods. */
  billing?: BillingSchedule | undefined;
  /** A subscription's latest pause, if it was ever paused (docs/decisions.md §41). */
  pause?: SubscriptionPause | null | undefined;
}

/**
 * Periods are counted from the anchor (calendar-correct, see billing-period.ts): `nextCharge` is
 * the start of period `period`, or a dunning retry of it after `failedAttempts` declines.
 */
export interface BillingSchedule {
  anchor: string;
  period: number;
  failedAttempts: number;
  /** The period that starts at the anchor (0 when absent); a resume re-anchors here (docs/decisions.md §41). */
  anchorPeriod?: number | undefined;
}

/**
 * A subscription's latest pause (docs/decisions.md §41): in effect from `startsAt` (the end of the paid
 * period) until `resumesAt` (null: until resumed by hand). `priorAnchor`: the schedule put back when the
 * pause is called off before it took effect.
 */
export interface SubscriptionPause {
  startsAt: string;
  resumesAt: string | null;
  priorAnchor: string | null;
  priorAnchorPeriod: number;
}

export interface LedgerEntry {
  id: string;
  transactionId: string;
  type: EntryType;
  createdAt: string;
  currency: string;
  amountTotalMinor: number;
  taxMinor: number;
  netMinor: number;
  taxRate: string;
  incomeMinor: number;
  incomeCurrency: string;
  affiliateIncomeMinor: number;
  serviceFeeMinor: number;
  transactionFeeMinor: number;
  /** For a refund or chargeback: the payment entry it reverses; for a dispute won or a refund failed, the reversal it undoes. */
  reversesEntryId: string | null;
  /** For a subscription payment: the billing period it pays for (its start, ISO). */
  periodStart: string | null;
  hashId: string;
  externalId: string | null;
  paymentProvider: string;
  country: string;
  /** The invoice's or credit note's number, sequential per vendor and environment (none for a chargeback). */
  invoiceNumber?: number | null;
  /** A vaulted charge's description; a refund's reason, as the vendor gave it. */
  description?: string | null;
  /** What a coupon took off the net of a payment (docs/decisions.md §38); 0 or absent without one. */
  discountMinor?: number;
}

/**
 * What a buyer paid with and what later charges use (docs/decisions.md §37). `type` is the processor's
 * method type ("card" when absent: every method before migration 0031); a method without a card has
 * `brand` '' and expiry 0, and `last4` the account's last digits where it has them (SEPA, a bank account).
 * `wallet`: the wallet a card was used through ("apple_pay", "google_pay"), else null.
 */
export interface PaymentMethod {
  id: string;
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  type?: string | undefined;
  wallet?: string | null | undefined;
}

export type LicenceStatus = 'ACTIVE' | 'INACTIVE' | 'NOT_FOUND';
