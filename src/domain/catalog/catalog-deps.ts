import type { Clock } from '../clock.ts';
import type { ExchangeRates, PlatformFee } from '../money/index.ts';
import type { Scope, SellerOfRecord } from '../model.ts';
import type { Repositories, Store } from '../ports.ts';

/** Vendors, products and customized products: what can be sold, and by whom. */
export interface CatalogDeps {
  store: Pick<Repositories, 'vendors' | 'products' | 'customizedProducts' | 'transactions' | 'productImages'> &
    Pick<Store, 'transaction'>;
  clock: Clock;
  /** `{hosted_url}` of an environment: where payment links point. */
  hostedUrl: (environment: Scope['environment']) => string;
  /** The rate table a vendor's own platform fee is checked against (its fixed part must convert). */
  rates: ExchangeRates;
  /** The platform's fee for a vendor without one of its own (PLATFORM_FEE). */
  platformFee: PlatformFee;
  /** Who sells (SELLER_OF_RECORD), and the operator's identity when it does. */
  sellerOfRecord: SellerOfRecord;
  /**
   * Billing's: moves the vendor's renewals that fell due while the operator had stopped them to the
   * period of now, so each is charged once when they go on (docs/decisions.md §24); returns how many.
   */
  skipStoppedRenewals?: (vendorId: string) => Promise<number>;
}
