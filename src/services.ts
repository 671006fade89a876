import type { Config } from './config.ts';
import {
  credentialService,
  operatorAccountService,
  panelAccountService,
  panelFlashService,
  panelInviteService,
  passwordHasher,
  type OperatorAccountService,
  type PanelFlashService,
  type PanelInviteService,
} from './domain/accounts/index.ts';
import { catalogService, couponService, licenceService, type CouponService } from './domain/catalog/index.ts';
import {
  attemptReconciler,
  chargeProtocol,
  refundService,
  reversalService,
  vaultedChargeService,
  type AttemptReconciler,
  type PaymentGateway,
} from './domain/payments/index.ts';
import { checkoutService, purchaseService, transactionService, type CheckoutService } from './domain/checkout/index.ts';
import { billingService, sandboxClockService, type BillingOptions } from './domain/billing/index.ts';
import { systemClock, vendorClock, type Clock, type VendorClock } from './domain/clock.ts';
import {
  customerEmailService,
  type CustomerEmailOptions,
  type CustomerEmailService,
  type EmailSender,
} from './domain/notifications/index.ts';
import { dashboardService, invoiceService, type DashboardService } from './domain/reports/index.ts';
import { checkedPlatformFee, type ExchangeRates } from './domain/money/index.ts';
import { loadExchangeRates, loadRateHistory } from './files/exchange-rates-file.ts';
import { loadUsSalesTax } from './files/us-sales-tax-file.ts';
import { formatVatIdChecker } from './domain/tax/index.ts';
import { adminSessionService, hostedLinks, type AdminSessionService } from './domain/hosted-links.ts';
import { idempotencyService, type IdempotencyService } from './domain/idempotency.ts';
import { processorEventService, type ProcessorEventService } from './domain/processor/index.ts';
import type { Environment, Scope } from './domain/model.ts';
import type { Store } from './domain/ports.ts';
import {
  payoutService,
  reconciliationService,
  taxReturnService,
  type PayoutService,
  type ReconciliationService,
  type TaxReturnService,
} from './domain/books/index.ts';
import { SESSION_LIFETIME_MS } from './gateways/stripe-gateway.ts';
import { gatewaysOf, paymentsOf, type Payments } from './services-gateways.ts';
import { composeEmail } from './mail/email-templates.ts';
import { smtpSender } from './mail/smtp-sender.ts';
import { createStore } from './store/index.ts';
import type { Database, DialectName } from './store/database.ts';
import { openDatabase } from './store/open-database.ts';
import { webhookServices, type WebhookOverrides, type WebhookServices } from './services-webhooks.ts';
import { portalServices } from './services-portal.ts';

/**
 * The composition root: one place that wires the store, the gateways and the domain services.
 * Transport (src/http, src/cli) receives `Services`: domain services only, never the store or the
 * database handle. `createServices` returns `Wiring`, which adds those two for the server's start-up,
 * the tests and the benchmarks.
 */
export interface Services extends WebhookServices {
  readonly config: Config;
  /** Real time, and each vendor's sandbox time (which the vendor may move forward). */
  readonly clock: VendorClock;
  readonly rates: ExchangeRates;
  /**
   * The ECB days tax returns convert at (docs/decisions.md §23): every day `opentill rates import` kept,
   * and the table in use. Read when a return is asked for, so an import needs no restart for them.
   */
  rateHistory(): ExchangeRates[];
  /** `{base_url}` of an environment: its API and hosted pages. */
  readonly urls: { base(environment: Environment): string };
  readonly credentials: ReturnType<typeof credentialService>;
  readonly catalog: ReturnType<typeof catalogService>;
  readonly coupons: CouponService;
  readonly purchases: ReturnType<typeof purchaseService>;
  readonly transactions: ReturnType<typeof transactionService>;
  readonly refunds: ReturnType<typeof refundService>;
  readonly vaulted: ReturnType<typeof vaultedChargeService>;
  readonly licences: ReturnType<typeof licenceService>;
  readonly invoices: ReturnType<typeof invoiceService>;
  readonly portal: ReturnType<typeof portalServices>;
  readonly panel: ReturnType<typeof panelAccountService>;
  /** The operator's console logins (docs/decisions.md §26). */
  readonly operators: OperatorAccountService;
  /** One-time messages of a panel session across the redirect after a POST (a new credential's secret). */
  readonly panelFlashes: PanelFlashService;
  /** One-time links that give a vendor made with the CLI (or the demo vendor) a panel login, or let someone sign up. */
  readonly panelInvites: PanelInviteService;
  /** The vendor panel's figures and lists. */
  readonly dashboard: DashboardService;
  readonly links: ReturnType<typeof hostedLinks>;
  /** Sessions of the admin tool: opened, checked on every request, revoked. */
  readonly adminSessions: AdminSessionService;
  readonly billing: ReturnType<typeof billingService>;
  readonly sandboxClock: ReturnType<typeof sandboxClockService>;
  readonly idempotency: IdempotencyService;
  /** Settles charge attempts whose gateway answer was lost (the billing worker runs it). */
  readonly reconciler: AttemptReconciler;
  readonly checkout: CheckoutService;
  /** How each environment's hosted pages take a card (opentill's form, the processor's element, or none configured). */
  readonly payments: Payments;
  /** Customer e-mails: queued by the changes that cause them, sent by the worker; off without SMTP. */
  readonly emails: CustomerEmailService;
  /** Vendors' balances and payout statements (what an operator selling for vendors owes each). */
  readonly payouts: PayoutService;
  /** The tax returns of a period: EU OSS, UK, US, Canada, Australia. */
  readonly taxReturns: TaxReturnService;
  /** The ledger against the processor's balance movements and payouts of a period (docs/decisions.md §25). */
  readonly reconciliation: ReconciliationService;
  /** The payment processor's events: received by the webhook routes, acted on by the billing worker. */
  readonly processorEvents: ProcessorEventService;
  /** What an operator runs and watches: schema migrations, readiness, the work waiting (/readyz, /metrics). */
  readonly maintenance: {
    readonly dialect: DialectName;
    migrate(): Promise<string[]>;
    /** Throws when the database cannot be reached. */
    ping(): Promise<void>;
    pendingMigrations(): Promise<string[]>;
    /** Subscriptions due now (real time), open charge attempts, processor events not yet handled, customer e-mails not yet sent; each counted up to a million. */
    waiting(): Promise<{ billingDue: number; openAttempts: number; eventsWaiting: number; emailsWaiting: number }>;
    /** PostgreSQL's connection pool; undefined on SQLite. */
    connections(): { open: number; idle: number; waiting: number } | undefined;
  };
  /** Mints the temporary URL of a hosted page. */
  hostedUrl(purpose: 'manage' | 'admin', scope: Scope, subject: string): string;
  close(): Promise<void>;
}

export interface Wiring extends Services {
  readonly database: Database;
  readonly store: Store;
}

export interface ServiceOverrides extends WebhookOverrides {
  database?: Database;
  clock?: Clock;
  /** Tests replace production's gateway: the payment network is the edge of the world. */
  gateways?: Partial<Record<Environment, PaymentGateway>>;
  billing?: BillingOptions;
  /** How long a gateway call may take before it is UNKNOWN, and how old an attempt must be before the reconciler asks about it. */
  payments?: { gatewayTimeoutMs?: number; reconcileGraceMs?: number };
  /** The e-mail network (SMTP_URL's server unless given) and the outbox's timings. */
  emails?: { sender?: EmailSender; options?: CustomerEmailOptions };
}

/** What every service is made over: the database and its store, the clocks, the rate table, the gateways, the URLs. */
function foundations(config: Config, overrides: ServiceOverrides) {
  const database =
    overrides.database ?? openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile });
  const store = createStore(database);
  const clock = vendorClock(overrides.clock ?? systemClock);
  const rates = loadExchangeRates(config.ratesFile);
  const gateways = gatewaysOf(config, overrides, database, clock);
  const urls = {
    base: (environment: Environment) => (environment === 'sandbox' ? config.sandboxUrl : config.baseUrl),
  };
  // New panel and console passwords at the operator's cost; each stored one is checked at its own.
  const passwords = passwordHasher(config.passwordHashCost);
  return { database, store, clock, rates, gateways, urls, passwords };
}

type Foundations = ReturnType<typeof foundations>;

/** The customer e-mail outbox: sent through SMTP_URL's server (or the tests' sender), off without one. */
function customerEmails(
  config: Config,
  overrides: ServiceOverrides,
  { store, clock, urls }: Foundations,
  links: ReturnType<typeof hostedLinks>,
) {
  const sender = overrides.emails?.sender ?? (config.smtp ? smtpSender(config.smtp.url) : undefined);
  return customerEmailService(
    {
      store,
      clock,
      sender,
      from: config.smtp?.from,
      sandboxTo: config.smtp?.sandboxTo,
      compose: composeEmail,
      links,
      urls,
    },
    overrides.emails?.options,
  );
}

/** The services that sell, charge, bill and refund, and those they share (the catalog, the e-mails, the charge protocol). */
function moneyServices(config: Config, overrides: ServiceOverrides, base: Foundations) {
  const { store, clock, rates, gateways, urls, passwords } = base;
  const platformFee = operatorPlatformFee(config.platformFee, rates);
  // What the catalog and the services that charge share; who sells decides the seller's identity and country.
  const shared = { store, clock, gateways, rates, platformFee, sellerOfRecord: config.sellerOfRecord };
  // Resuming a vendor whose renewals were stopped moves them on through billing (made below).
  const skipStoppedRenewals = (vendorId: string) => billing.skipStoppedRenewals(vendorId);
  const catalog = catalogService({ ...shared, hostedUrl: urls.base, skipStoppedRenewals });
  const panelInvites = panelInviteService({ store, clock, secret: config.secret, passwords });
  const links = hostedLinks(config.secret);
  const emails = customerEmails(config, overrides, base, links);
  const coupons = couponService({ store, clock, rates });
  const transactions = transactionService({ store, clock, emails });
  const idempotency = idempotencyService({ store, clock, staleAfterMs: config.payments.idempotencyStaleMs });
  const protocol = chargeProtocol({
    store,
    clock,
    gateways,
    gatewayTimeoutMs: overrides.payments?.gatewayTimeoutMs ?? config.payments.gatewayTimeoutMs,
  });
  // The ZIP-level US sales tax table, read once at start like the rate table (a bad file stops the start, naming its line).
  const usSalesTax = config.salesTaxFile ? loadUsSalesTax(config.salesTaxFile) : undefined;
  const purchases = purchaseService({
    ...shared,
    catalog,
    coupons,
    protocol,
    vatIds: formatVatIdChecker,
    usSalesTax,
    emails,
  });
  const reversals = reversalService({ emails });
  const refunds = refundService({ store, clock, protocol, reversals });
  const vaulted = vaultedChargeService({ ...shared, protocol, usSalesTax });
  const billing = billingService(
    { store, clock, gateways, rates, platformFee, usSalesTax, emails },
    {
      leaseMs: config.billing.leaseSeconds * 1000,
      batchSize: config.billing.batchSize,
      gatewayTimeoutMs: overrides.payments?.gatewayTimeoutMs ?? config.payments.gatewayTimeoutMs,
      ...overrides.billing,
    },
  );
  const processorEvents = processorEventService({
    store,
    clock,
    gateways,
    protocol,
    reversals,
    bookings: { PURCHASE: purchases.booking, VAULTED: vaulted.booking, REFUND: refunds.booking },
    cancel: (scope, id, who) => transactions.cancel(scope, id, who),
    // Billing books a renewal the customer authenticated after the bank held it, once; a processor
    // that did not answer leaves the event to be tried again later.
    authenticatedRenewal: async (attempt, reference) => {
      if ((await billing.bookAuthenticated(attempt, reference)) === 'PENDING')
        throw new Error(`renewal ${attempt.id}: the processor did not answer yet`);
    },
  });
  return {
    catalog,
    panelInvites,
    links,
    emails,
    coupons,
    transactions,
    idempotency,
    protocol,
    purchases,
    refunds,
    vaulted,
    billing,
    processorEvents,
    taxReturns: taxReturnService({ store, sellerOfRecord: config.sellerOfRecord, usSalesTax }),
  };
}

/** PLATFORM_FEE, checked against the rate table: a fee opentill cannot take stops the start, saying why. */
function operatorPlatformFee(text: string, rates: ExchangeRates) {
  try {
    return checkedPlatformFee(text, rates);
  } catch (err) {
    throw new Error(`PLATFORM_FEE: ${(err as Error).message}`, { cause: err });
  }
}

/** What an operator runs and watches: migrations, readiness, the work waiting, the connection pool. */
function maintenanceOf({ database, store, clock }: Foundations): Services['maintenance'] {
  return {
    dialect: database.dialect,
    migrate: () => database.migrate(),
    ping: async () => {
      await store.vendors.find('ping');
    },
    pendingMigrations: () => database.pendingMigrations(),
    waiting: () => store.operations.waiting(clock.real().toISOString(), 1_000_000),
    connections: () => database.connections?.(),
  };
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Wiring {
  const base = foundations(config, overrides);
  const { database, store, clock, rates, gateways, urls, passwords } = base;
  const money = moneyServices(config, overrides, base);
  const { catalog, panelInvites, links, emails, transactions, protocol, purchases, refunds, vaulted, billing } = money;
  return {
    config,
    database,
    store,
    clock,
    rates,
    urls,
    credentials: credentialService({ store, clock, secret: config.secret }),
    catalog,
    coupons: money.coupons,
    purchases,
    transactions,
    refunds,
    vaulted,
    reconciler: attemptReconciler({
      store,
      clock,
      protocol,
      bookings: { PURCHASE: purchases.booking, VAULTED: vaulted.booking, REFUND: refunds.booking },
      renewals: billing.renewals,
      graceMs: overrides.payments?.reconcileGraceMs ?? config.payments.reconcileGraceMs,
      // A minute past the processor's own lifetime of a session: by then its look finds it expired and cancels it.
      sessionLifetimeMs: SESSION_LIFETIME_MS + 60_000,
    }),
    licences: licenceService({ store, clock, emails }),
    invoices: invoiceService({ store, sellerOfRecord: config.sellerOfRecord }),
    portal: portalServices({ ...base, ...money, secret: config.secret, sellerOfRecord: config.sellerOfRecord }),
    panel: panelAccountService({
      store,
      clock,
      signUp: config.panelSignup,
      passwords,
      newVendor: catalog.newVendor,
      invitations: panelInvites,
    }),
    panelFlashes: panelFlashService({ store, clock }),
    operators: operatorAccountService({ store, clock, passwords }),
    panelInvites,
    dashboard: dashboardService({ store, clock, rates }),
    links,
    adminSessions: adminSessionService({ store, clock, links }),
    billing,
    sandboxClock: sandboxClockService({ store, clock, billing }),
    idempotency: money.idempotency,
    checkout: checkoutService({ purchases, transactions }),
    payments: paymentsOf(config, gateways),
    processorEvents: money.processorEvents,
    emails,
    payouts: payoutService({ store, clock, holdDays: config.payoutHoldDays }),
    taxReturns: money.taxReturns,
    reconciliation: reconciliationService({ store, gateways }),
    maintenance: maintenanceOf(base),
    ...webhookServices(config, overrides, base),
    rateHistory: () => [...loadRateHistory(config.ratesHistoryFile), rates],
    hostedUrl(purpose, scope, subject) {
      const token = links.issue(purpose, scope, subject, clock.now());
      return `${urls.base(scope.environment)}/${purpose}/${token}`;
    },
    close: async () => {
      emails.close();
      await database.close();
    },
  };
}
