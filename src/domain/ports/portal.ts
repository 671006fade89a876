import type { Scope } from '../model.ts';

/** A one-time sign-in link of the customer portal, kept by the SHA-256 of its token (docs/decisions.md §34). */
export interface PortalSignIn {
  tokenHash: string;
  scope: Scope;
  /** Lower case: the address the link was sent to, whose purchases it opens. */
  email: string;
  expiresAt: string;
  createdAt: string;
  /** When it was used; null while unused. */
  usedAt?: string | null;
}

/** The billing details an invoice was issued with (docs/decisions.md §34): what the edit changes. */
export interface IssuedBuyer {
  buyerName: string | null;
  businessName: string | null;
  buyerAddress: string | null;
  buyerVatId: string | null;
  reverseCharge: boolean;
  taxName: string;
}

/** What the customer portal keeps beyond the transactions: sign-in links and the vendor's portal settings. */
export interface PortalRepository {
  insertSignIn(signIn: PortalSignIn): Promise<void>;
  /** A sign-in link by its hash, used or not, expired or not. */
  findSignIn(tokenHash: string): Promise<PortalSignIn | undefined>;
  /**
   * Marks the link used and answers it, if it exists, is unused and unexpired at `now`; undefined
   * otherwise. One statement, so two clicks at once open it once.
   */
  useSignIn(tokenHash: string, now: string): Promise<PortalSignIn | undefined>;
  deleteExpiredSignIns(before: string): Promise<void>;
  /** The products a subscriber of `productId` may switch to, as the vendor chose them. */
  switchesOf(scope: Scope, productId: string): Promise<string[]>;
  /** Replaces the product's switch list. */
  setSwitches(scope: Scope, productId: string, toProductIds: readonly string[]): Promise<void>;
  /** Whether the vendor lets customers cancel at once (not only at the period's end). */
  cancelNow(vendorId: string): Promise<boolean>;
  setCancelNow(vendorId: string, allowed: boolean): Promise<void>;
  /** Whether the vendor lets customers change their seats on the management page (docs/decisions.md §39). */
  customerSeats(vendorId: string): Promise<boolean>;
  setCustomerSeats(vendorId: string, allowed: boolean): Promise<void>;
  /**
   * Before the billing details change: keeps `buyer` for every invoice and credit note of the
   * transaction issued so far that has none kept yet (each keeps what it was first issued with).
   */
  keepIssuedBuyers(transactionId: string, buyer: IssuedBuyer): Promise<void>;
  /** The details an entry's invoice was issued with, when they have changed since; else undefined. */
  issuedBuyer(entryId: string): Promise<IssuedBuyer | undefined>;
}
