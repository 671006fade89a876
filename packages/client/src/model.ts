import type {
  WireCancelled,
  WirePauseResult,
  WireQuantityChange,
  WireChangedTransaction,
  WireClockReading,
  WireCustomizeResult,
  WireEntry,
  WireLicenceStatus,
  WireLicenceState,
  WireActivatedLicence,
  WireListedTransaction,
  WireMarkedProcessed,
  WireProduct,
  WireCoupon,
  WirePublicPrice,
  WireRefundPending,
  WireRefundRecord,
  WireTransactionWithEntries,
  WireUpdatedTransaction,
  WireUrlResult,
  WireVaultedCharge,
} from './wire.ts';

/**
 * What the SDK hands back: one typed shape per resource, whichever spelling the answer used (the
 * original API writes the change flag `changeStatus` or `changedStatus`, the assigned e-mail
 * `assignedEmail` or `assignEmail`, the platform fee `TCFee`), and the answer's own object as `raw`.
 */

export type TransactionType = 'ONETIME' | 'SUBSCRIPTION' | 'VAULTED';
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
export type ChargeFrequency = 'UNKNOWN' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'HALF_YEARLY' | 'YEARLY';
export type WhoCanceled = 'TRANSACTION_CLOUD_ADMIN' | 'VENDOR' | 'CUSTOMER' | 'NEXT_CHARGE_FAILED' | 'WALLET_PROVIDER';
export type ChangeStatus =
  | 'CHANGED_STATUS_NEW'
  | 'CHANGED_STATUS_RENEWED'
  | 'CHANGED_STATUS_CANCELLED'
  | 'CHANGED_STATUS_REFUNDED'
  | 'CHANGED_STATUS_TRIAL'
  | 'CHANGED_STATUS_VAULTED_ACTIVATION'
  | 'CHANGED_STATUS_VAULTED_DEACTIVATION';
export type EntryType =
  | 'SUBSCRIPTION_PAYMENT'
  | 'VAULTED_PAYMENT'
  | 'ONETIME_PAYMENT'
  | 'SUBSCRIPTION_REFUND'
  | 'ONETIME_PAYMENT_REFUND'
  | 'CHARGEBACK';

/** A transaction as every read and update answers it. */
export interface Transaction {
  id: string;
  createDate: string;
  /** The e-mail of the payment form. */
  email: string;
  /** The sign-up e-mail the vendor assigned (`assignedEmail`, or `assignEmail` in update answers); null until set. */
  assignedEmail: string | null;
  productId: string;
  productName: string;
  transactionType: TransactionType;
  transactionStatus: TransactionStatus;
  chargeFrequency: ChargeFrequency | null;
  country: string;
  lastCharge: string | null;
  /** Only in the by-e-mail list; absent for one-time transactions. */
  nextCharge?: string | null;
  payload: string | null;
  whoCanceled: WhoCanceled | null;
  netPrice: number;
  netPriceS: string;
  netPriceInUSD: number;
  netPriceInUSDS: string;
  tax: number;
  taxS: string;
  currency: string;
  raw: WireListedTransaction | WireTransactionWithEntries | WireUpdatedTransaction;
}

export interface LedgerEntry extends Omit<WireEntry, 'type'> {
  type: EntryType;
}

export interface TransactionWithEntries extends Transaction {
  entries: LedgerEntry[];
  raw: WireTransactionWithEntries;
}

/** An element of the change feed. */
export interface ChangedTransaction {
  id: string;
  /** What changed (`changeStatus`, or `changedStatus` as the samples spell it). */
  changeStatus: ChangeStatus | null;
  /** `assignedEmail`, or `assignEmail` as the schema spells it. */
  assignedEmail: string | null;
  createDate: string;
  email: string;
  productId: string;
  productName: string;
  transactionType: TransactionType;
  transactionStatus: TransactionStatus;
  chargeFrequency: ChargeFrequency | null;
  country: string;
  lastCharge: string | null;
  nextCharge?: string | null;
  payload: string | null;
  whoCanceled: WhoCanceled | null;
  raw: WireChangedTransaction;
}

export interface ChangePage {
  changes: ChangedTransaction[];
  /** The answer's `x-more-changes: true`: more are waiting beyond `limit`. */
  more: boolean;
}

export interface RefundRecord extends Omit<WireRefundRecord, 'TCFee'> {
  /** The platform's fee (`TCFee` on the wire). */
  platformFee: number;
  raw: WireRefundRecord;
}

export type RefundResult =
  | { status: 'REFUNDED'; refunds: RefundRecord[]; idempotencyKey: string; raw: WireRefundRecord[] }
  /** 202: the provider has not confirmed yet; call again with this idempotencyKey to learn the outcome. */
  | { status: 'PENDING'; message: string; idempotencyKey: string; raw: WireRefundPending };

export interface VaultedCharge extends Omit<WireVaultedCharge, 'status'> {
  /** PENDING (202): the provider has not confirmed; call again with this idempotencyKey to learn the outcome. */
  status: 'SUCCESS' | 'FAILED' | 'PENDING';
  idempotencyKey: string;
  raw: WireVaultedCharge;
}

export interface CustomizedProduct {
  /** The personalised payment link. */
  link: string;
  /** `customizedProductId` (or `customProductId`). */
  customizedProductId: string;
  raw: WireCustomizeResult;
}

export type Raw<T> = T & { raw: T };
export type LicenceStatus = Raw<WireLicenceStatus>;
/** A licence key and where it is activated (opentill's own, docs/decisions.md §40). */
export type LicenceState = Raw<WireLicenceState>;
export type ActivatedLicence = Raw<WireActivatedLicence>;
export type UrlResult = Raw<WireUrlResult>;
export type Cancelled = Raw<WireCancelled>;
export type PauseResult = Raw<WirePauseResult>;
export type QuantityChange = Raw<WireQuantityChange>;
export type MarkedProcessed = Raw<WireMarkedProcessed>;
export type SandboxClock = Raw<WireClockReading>;
/** A product's price for a customer, tax included, as the client script shows it. */
export type PublicPrice = Raw<WirePublicPrice>;
/** A product of opentill's own product API (/v1/products, not in the original API). */
export type Product = Raw<WireProduct>;
export type Coupon = Raw<WireCoupon>;
