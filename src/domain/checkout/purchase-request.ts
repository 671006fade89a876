import type { CatalogService, CouponService } from '../catalog/index.ts';
import type { Clock } from '../clock.ts';
import type { ExchangeRates, PlatformFee } from '../money/index.ts';
import type { Booking, CardInput, ChargeProtocol, PaymentGateway } from '../payments/index.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import type { Environment, SellerOfRecord, Transaction } from '../model.ts';
import type { Store } from '../ports.ts';
import type { PriceQuote, UsSalesTaxTable, VatIdChecker } from '../tax/index.ts';

/**
 * A customer buys a product: price it, take the card, charge what is due now, and record the
 * transaction, its first ledger entry, its licence and its change flag in one database transaction.
 * The hosted checkout, the CLI and the demo seed all buy through here.
 */
export interface PurchaseDeps {
  store: Store;
  clock: Clock;
  catalog: Pick<CatalogService, 'resolveOffer' | 'requireOpenForSale'>;
  coupons: Pick<CouponService, 'redeemable'>;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
  /** The platform's fee unless the vendor has one of its own (PLATFORM_FEE). */
  platformFee: PlatformFee;
  protocol: ChargeProtocol;
  /** Checks a business buyer's VAT ID (a port: format-only now, VIES online one day). */
  vatIds: VatIdChecker;
  /** The ZIP-level US sales tax table imported with `opentill tax import`, if any. */
  usSalesTax?: UsSalesTaxTable | undefined;
  /** Who sells (SELLER_OF_RECORD): whose country decides reverse charge. */
  sellerOfRecord: SellerOfRecord;
  /** Queues the receipt in the booking's database transaction. */
  emails?: EmailRecorder | undefined;
}

/** A purchase's dependencies and the one booking every settle of its attempts writes through. */
export interface Purchasing {
  deps: PurchaseDeps;
  booking: Booking<'PURCHASE'>;
}

export interface PurchaseRequest {
  productId: string;
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  country: string;
  /** US state or Canadian province, where the tax differs by region. */
  region?: string | undefined;
  /** A US ZIP code: its combined rate when the ZIP-level table has it. */
  zip?: string | undefined;
  /** A business buyer: its company name and VAT ID (EU reverse charge when the ID is valid and the seller is elsewhere in the EU). */
  businessName?: string | undefined;
  vatId?: string | undefined;
  /** A business buyer's street and city for the invoice (required with a VAT ID: an EU invoice names the buyer's address). */
  buyerAddress?: string | undefined;
  /** The currency the customer was shown; defaults to the country's own. */
  currency?: string | undefined;
  /** The card typed into opentill's form (the sandbox); absent when the processor takes it in the browser. */
  card?: CardInput | undefined;
  payload?: string | null | undefined;
  /** A coupon code the customer typed. */
  coupon?: string | undefined;
  /** The total the customer was shown; a purchase at any other price is refused, never charged. */
  expectedTotal?: { currency: string; totalMinor: number } | undefined;
  /** The attempt's key from what the client sent (the checkout form's token): the same key is the same purchase. */
  attemptKey?: string | undefined;
  /** The language the buyer saw the checkout in (a supported locale tag); kept on the transaction. */
  locale?: string | undefined;
  /** Seats (docs/decisions.md §39): as typed or preset; none is the product's minimum. */
  quantity?: unknown;
  /** The portal's plan switch (docs/decisions.md §34): the subscription this purchase replaces, now or at its period's end. */
  replaces?: { transactionId: string; atPeriodEnd: boolean } | undefined;
}

/** Where the customer is: what decides the currency and the tax. */
export interface Locality {
  country: string;
  region?: string | null | undefined;
  /** A US ZIP code, for the ZIP-level sales tax. */
  zip?: string | null | undefined;
  /** The currency to price in (a subscription's own, for a plan switch); else the country's. */
  currency?: string | undefined;
}

export type PurchaseResult =
  | { status: 'PAID'; transaction: Transaction; quote: PriceQuote; licence: string | null }
  | { status: 'DECLINED'; code: string; message: string }
  /** The gateway's answer is unknown (it threw, timed out or was lost): the reconciler will settle it. */
  | { status: 'PENDING'; attemptKey: string; message: string };

/**
 * A browser payment: the processor's session the customer confirms in the browser (or, already settled,
 * its result); NEEDS_BROWSER when a session is needed and the caller cannot use one (a form sent without its script).
 */
export type BrowserPaymentStart =
  | PurchaseResult
  | { status: 'SESSION'; attemptKey: string; clientSecret: string; mode: 'payment' | 'setup' }
  | { status: 'NEEDS_BROWSER' };
