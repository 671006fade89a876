import type { Clock } from '../clock.ts';
import type { ExchangeRates, PlatformFee } from '../money/index.ts';
import type { Scope } from '../model.ts';
import type { Repositories, Store } from '../ports.ts';

/** Vendors, products and customized products: what can be sold, and by whom. */
export interface CatalogDeps {
  store: Pick<Repositories, 'vendors' | 'products' | 'customizedProducts' | 'transactions'> &
    Pick<Store, 'transaction'>;
  clock: Clock;
  /** `{hosted_url}` of an environment: where payment links point. */
  hostedUrl: (environment: Scope['environment']) => string;
  /** The rate table a vendor's own platform fee is checked against (its fixed part must convert). */
  rates: ExchangeRates;
  /** The platform's fee for a vendor without one of its own (PLATFORM_FEE). */
  platformFee: PlatformFee;
}
