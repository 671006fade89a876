import type {
  AdminSessionRepository,
  CredentialRepository,
  OperatorRepository,
  PanelFlashRepository,
  PanelRepository,
  VendorRepository,
} from './ports/accounts.ts';
import type {
  CouponRepository,
  CustomerRepository,
  CustomizedProductRepository,
  LicenceRepository,
  PaymentMethodRepository,
  ProductRepository,
} from './ports/catalog.ts';
import type { EntryRepository, FeedRepository, TransactionRepository } from './ports/ledger.ts';
import type { ChargeAttemptRepository, IdempotencyRepository } from './ports/attempts.ts';
import type { BillingRepository, SandboxClockRepository } from './ports/billing.ts';
import type { CustomerEmailRepository, OperationsRepository, ProcessorEventRepository } from './ports/events.ts';
import type { DashboardRepository } from './ports/dashboard.ts';
import type { PayoutRepository, TaxRepository } from './ports/books.ts';
import type { WebhookRepository } from './ports/webhooks.ts';
import type { PortalRepository } from './ports/portal.ts';
import type { LicenceActivationRepository } from './ports/licence-activations.ts';
import type { ProductImageRepository } from './ports/product-images.ts';
import type { PauseRepository } from './ports/pauses.ts';

export type * from './ports/accounts.ts';
export type * from './ports/catalog.ts';
export type * from './ports/ledger.ts';
export type * from './ports/attempts.ts';
export type * from './ports/billing.ts';
export type * from './ports/events.ts';
export type * from './ports/dashboard.ts';
export type * from './ports/books.ts';
export type * from './ports/webhooks.ts';
export type * from './ports/portal.ts';
export type * from './ports/licence-activations.ts';
export type * from './ports/product-images.ts';
export type * from './ports/pauses.ts';

/**
 * What the domain needs from storage, in the domain's words. src/store implements it for SQLite and
 * PostgreSQL; services never see SQL. Inside `transaction`, every call is part of one database
 * transaction, and `transactions.lock` holds the row until it commits. Each repository, with the
 * records it keeps, is in ports/ by area; this file puts them together.
 */
export interface Repositories {
  vendors: VendorRepository;
  credentials: CredentialRepository;
  products: ProductRepository;
  customizedProducts: CustomizedProductRepository;
  coupons: CouponRepository;
  customers: CustomerRepository;
  paymentMethods: PaymentMethodRepository;
  transactions: TransactionRepository;
  entries: EntryRepository;
  licences: LicenceRepository;
  licenceActivations: LicenceActivationRepository;
  feed: FeedRepository;
  chargeAttempts: ChargeAttemptRepository;
  billing: BillingRepository;
  sandboxClocks: SandboxClockRepository;
  panel: PanelRepository;
  panelFlashes: PanelFlashRepository;
  adminSessions: AdminSessionRepository;
  processorEvents: ProcessorEventRepository;
  /** What the vendor panel's dashboard reads (src/store/dashboard-store.ts). */
  dashboard: DashboardRepository;
  /** The customer e-mail outbox (src/domain/notifications/customer-emails.ts). */
  customerEmails: CustomerEmailRepository;
  operations: OperationsRepository;
  idempotency: IdempotencyRepository;
  /** Vendors' payout statements (src/domain/books). */
  payouts: PayoutRepository;
  /** The ledger's sales summed for the tax returns (src/domain/books). */
  taxes: TaxRepository;
  /** The operator's console logins and sessions (src/domain/accounts/operator-accounts.ts). */
  operators: OperatorRepository;
  /** Vendors' webhook endpoints and the outbox of their events (src/domain/webhooks). */
  webhooks: WebhookRepository;
  /** The customer portal's sign-in links and settings (src/domain/portal). */
  portal: PortalRepository;
  /** Products' images (src/domain/catalog/product-images.ts). */
  productImages: ProductImageRepository;
  /** Subscriptions' pauses (src/domain/billing/pauses.ts). */
  pauses: PauseRepository;
}

export interface Store extends Repositories {
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
}
