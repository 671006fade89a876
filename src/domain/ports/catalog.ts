import type { Coupon, CustomizedProduct, Environment, PaymentMethod, Product, Scope, SeatPricing } from '../model.ts';

// What vendors sell and to whom: products, offers, coupons, customers, their cards and licences.

export interface ProductRepository {
  insert(product: Product): Promise<void>;
  find(scope: Scope, id: string): Promise<Product | undefined>;
  list(scope: Scope): Promise<Product[]>;
  /** Changes what a product shows and costs from now on; its type stays (its frequency only while nothing was sold). */
  update(
    scope: Scope,
    id: string,
    fields: Pick<Product, 'name' | 'description' | 'chargeFrequency' | 'trialDays' | 'issuesLicences' | 'prices'>,
  ): Promise<boolean>;
  /** Sells a product per seat with this range and tiers, or one per purchase (null); false when the scope has no such product. */
  setSeats(scope: Scope, id: string, seats: SeatPricing | null): Promise<boolean>;
  /** Sets how many instances each licence key of the product may be activated on; null is no limit. */
  setActivationLimit(scope: Scope, id: string, limit: number | null): Promise<boolean>;
  /** Archives a product (`at`) or puts it on sale again (null); false when the scope has no such product. */
  setArchived(scope: Scope, id: string, at: string | null): Promise<boolean>;
  /** Whether any transaction was sold on the product, directly or through one of its customized products. */
  hasSales(scope: Scope, id: string): Promise<boolean>;
  /** The vendor of a product or customized product id, for public pages that carry no credential. */
  ownerOf(id: string, environment: Environment): Promise<string | undefined>;
}

export interface CustomizedProductRepository {
  insert(product: CustomizedProduct): Promise<void>;
  find(scope: Scope, id: string): Promise<CustomizedProduct | undefined>;
}

export interface CouponRepository {
  insert(coupon: Coupon): Promise<void>;
  /** The coupon with this code (upper case) that applies to this product (its own first), revoked or not. */
  findByCode(scope: Scope, productId: string, code: string): Promise<Coupon | undefined>;
  list(scope: Scope): Promise<Coupon[]>;
  revoke(scope: Scope, id: string, at: string): Promise<boolean>;
  /** Every coupon of the scope with this code (upper case), whichever products it applies to. */
  withCode(scope: Scope, code: string): Promise<Coupon[]>;
  find(scope: Scope, id: string): Promise<Coupon | undefined>;
  /**
   * Takes a redemption for a purchase, in the caller's database transaction, only below the coupon's
   * cap and the e-mail's (`maxPerCustomer`); HELD until `use` (booked) or `release` (its payment failed).
   */
  hold(redemption: {
    couponId: string;
    transactionId: string;
    email: string;
    maxPerCustomer: number | null;
    at: string;
  }): Promise<'HELD' | 'USED_UP' | 'CUSTOMER_USED_UP'>;
  use(transactionId: string, at: string): Promise<boolean>;
  /** Gives a held redemption back; false if there was none held. */
  release(transactionId: string, at: string): Promise<boolean>;
  /** This e-mail (any case) has a paid purchase (a payment in the ledger) from the vendor in this environment. */
  hasPaidPurchase(scope: Scope, email: string): Promise<boolean>;
}

export interface CustomerRepository {
  /** The customer with this e-mail (case-insensitive), created if new; returns its id. */
  upsert(
    scope: Scope,
    customer: { id: string; email: string; firstName: string | null; lastName: string | null; createdAt: string },
  ): Promise<string>;
  /** The customer's name as given at checkout. */
  find(
    scope: Scope,
    id: string,
  ): Promise<{ email: string; firstName: string | null; lastName: string | null } | undefined>;
}

export interface PaymentMethodRepository {
  insert(scope: Scope, customerId: string, gateway: string, method: PaymentMethod, createdAt: string): Promise<void>;
  find(id: string): Promise<PaymentMethod | undefined>;
  /** The running subscriptions and active vaulted methods of `environment` that charge the method stored as `token`. */
  chargedWith(environment: Environment, token: string): Promise<{ scope: Scope; transactionId: string }[]>;
}

export interface LicenceRepository {
  insert(licence: {
    id: string;
    scope: Scope;
    productId: string;
    transactionId: string;
    key: string;
    createdAt: string;
  }): Promise<void>;
  find(scope: Scope, productId: string, key: string): Promise<{ transactionId: string } | undefined>;
  keyOf(scope: Scope, transactionId: string): Promise<string | undefined>;
  /**
   * Moves the licence of `fromTransactionId` (its key, activations and any revocation) to `toTransactionId`,
   * the subscription a seat change goes on as (docs/decisions.md §39); false when it has none.
   */
  carryOver(scope: Scope, fromTransactionId: string, toTransactionId: string): Promise<boolean>;
}
