import type { Config } from './config.ts';
import { catalogService } from './domain/catalog.ts';
import { billingService, type BillingOptions } from './domain/billing.ts';
import { systemClock, vendorClock, type Clock, type VendorClock } from './domain/clock.ts';
import { couponService, type CouponService } from './domain/coupons.ts';
import { credentialService } from './domain/credentials.ts';
import { customerPortalService } from './domain/customer-portal.ts';
import { loadExchangeRates, type ExchangeRates } from './domain/exchange-rates.ts';
import type { PaymentGateway } from './domain/gateway.ts';
import { hostedLinks } from './domain/hosted-links.ts';
import { invoiceService } from './domain/invoices.ts';
import { licenceService } from './domain/licences.ts';
import { panelAccountService } from './domain/panel-accounts.ts';
import type { Environment, Scope } from './domain/model.ts';
import type { Store } from './domain/ports.ts';
import { purchaseService } from './domain/purchases.ts';
import { refundService } from './domain/refunds.ts';
import { sandboxClockService } from './domain/sandbox-clock.ts';
import { transactionService } from './domain/transactions.ts';
import { vaultedChargeService } from './domain/vaulted-charges.ts';
import { sandboxGateway } from './gateways/sandbox-gateway.ts';
import { unconfiguredGateway } from './gateways/unconfigured-gateway.ts';
import { createStore } from './store/index.ts';
import { openDatabase, type Database } from './store/database.ts';

/** The composition root: one place that wires the store, the gateways and the domain services. */
export interface Services {
  readonly config: Config;
  readonly database: Database;
  readonly store: Store;
  /** Real time, and each vendor's sandbox time (which the vendor may move forward). */
  readonly clock: VendorClock;
  readonly rates: ExchangeRates;
  readonly urls: { base(environment: Environment): string; hosted(environment: Environment): string };
  readonly credentials: ReturnType<typeof credentialService>;
  readonly catalog: ReturnType<typeof catalogService>;
  readonly coupons: CouponService;
  readonly purchases: ReturnType<typeof purchaseService>;
  readonly transactions: ReturnType<typeof transactionService>;
  readonly refunds: ReturnType<typeof refundService>;
  readonly vaulted: ReturnType<typeof vaultedChargeService>;
  readonly licences: ReturnType<typeof licenceService>;
  readonly invoices: ReturnType<typeof invoiceService>;
  readonly portal: ReturnType<typeof customerPortalService>;
  readonly panel: ReturnType<typeof panelAccountService>;
  readonly links: ReturnType<typeof hostedLinks>;
  readonly billing: ReturnType<typeof billingService>;
  readonly sandboxClock: ReturnType<typeof sandboxClockService>;
  /** Mints the temporary URL of a hosted page. */
  hostedUrl(purpose: 'manage' | 'admin', scope: Scope, subject: string): string;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  database?: Database;
  clock?: Clock;
  /** Tests replace production's gateway: the payment network is the edge of the world. */
  gateways?: Partial<Record<Environment, PaymentGateway>>;
  billing?: BillingOptions;
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const database = overrides.database ?? openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  const store = createStore(database);
  const clock = vendorClock(overrides.clock ?? systemClock);
  const rates = loadExchangeRates(config.ratesFile);
  const gateways: Record<Environment, PaymentGateway> = {
    production: overrides.gateways?.production ?? unconfiguredGateway,
    sandbox: overrides.gateways?.sandbox ?? sandboxGateway(database.kysely, () => clock.real()),
  };
  const urls = {
    base: (environment: Environment) => (environment === 'sandbox' ? config.sandboxUrl : config.baseUrl),
    hosted: (environment: Environment) => (environment === 'sandbox' ? config.sandboxUrl : config.baseUrl),
  };
  const catalog = catalogService({ store, clock, hostedUrl: urls.hosted });
  const links = hostedLinks(config.secret);
  const coupons = couponService({ store, clock });
  const transactions = transactionService({ store, clock });
  const billing = billingService({ store, clock, gateways, rates }, { leaseMs: config.billing.leaseSeconds * 1000, batchSize: config.billing.batchSize, ...overrides.billing });
  return {
    config,
    database,
    store,
    clock,
    rates,
    urls,
    credentials: credentialService({ store, clock, secret: config.secret }),
    catalog,
    coupons,
    purchases: purchaseService({ store, clock, catalog, coupons, gateways, rates }),
    transactions,
    refunds: refundService({ store, clock, gateways }),
    vaulted: vaultedChargeService({ store, clock, gateways, rates }),
    licences: licenceService({ store }),
    invoices: invoiceService({ store }),
    portal: customerPortalService({ store, clock, gateways, transactions }),
    panel: panelAccountService({ store, clock, createVendor: (input) => catalog.createVendor(input) }),
    links,
    billing,
    sandboxClock: sandboxClockService({ store, clock, billing }),
    hostedUrl(purpose, scope, subject) {
      const token = links.issue(purpose, scope, subject, clock.now());
      return `${urls.hosted(scope.environment)}/${purpose}/${token}`;
    },
    close: () => database.close(),
  };
}
