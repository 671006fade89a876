import type { OperatorSessionsTable, OperatorUsersTable } from './schema-operators.ts';
import type { PayoutStatementEntriesTable, PayoutStatementsTable } from './schema-payouts.ts';
import type { PaymentMethodsTable } from './schema-payment-methods.ts';
import type { WebhookEndpointsTable, WebhookEventsTable } from './schema-webhooks.ts';
import type {
  IssuedInvoiceBuyersTable,
  PortalPlanSwitchesTable,
  PortalSettingsTable,
  PortalSignInsTable,
} from './schema-portal.ts';
import type { CustomizedProductSeatColumns, ProductSeatColumns, TransactionSeatColumns } from './schema-seats.ts';
import type { TransactionPauseColumns } from './schema-pause.ts';
import type { LicenceActivationTables, LicencesTable, ProductActivationColumns } from './schema-licences.ts';
import type { ProductImageColumns, ProductImagesTable } from './schema-product-images.ts';
import type { Generated } from 'kysely';
import type {
  CouponCustomerRedemptionsTable,
  CouponRedemptionsTable,
  CouponsTable,
  EntryDiscountColumns,
  TransactionCouponColumns,
} from './schema-coupons.ts';

/**
 * Row types of every table. Timestamps are ISO-8601 UTC strings (fixed width, so they sort),
 * money is integer minor units, booleans are 0/1: the same representation on SQLite and PostgreSQL.
 */
export interface VendorsTable {
  id: string;
  name: string;
  email: string;
  created_at: string;
  allow_conversion: Generated<number>;
  /** Origins allowed to frame the admin tool, space-separated. */
  admin_frame_origins: Generated<string>;
  seller_name: string | null;
  /** Address lines joined with "\n". */
  address: string | null;
  country: string | null;
  tax_id: string | null;
  support_email: string | null;
  /** A data URL (PNG or JPEG). */
  logo: string | null;
  email_sender_name: string | null;
  email_reply_to: string | null;
  /** Customer e-mail kinds turned off, space-separated. */
  emails_off: Generated<string>;
  /** 1: the vendor reaches production; 0: the sandbox only, until the operator enables production. */
  production_enabled: Generated<number>;
  /** The vendor's own platform fee (`3%+0.30USD`); null: the operator's default. */
  platform_fee: string | null;
  /** When the operator suspended the vendor; null: not suspended. */
  suspended_at: string | null;
  suspension_reason: string | null;
  /** 1: the operator stopped the suspended vendor's renewals too. */
  renewals_stopped: Generated<number>;
}

export interface ApiCredentialsTable {
  id: string;
  vendor_id: string;
  environment: string;
  login: string;
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface ProductsTable extends ProductSeatColumns, ProductImageColumns, ProductActivationColumns {
  id: string;
  vendor_id: string;
  environment: string;
  name: string;
  description: string;
  type: string;
  charge_frequency: string;
  trial_days: number;
  issues_licences: number;
  created_at: string;
  /** Set when the vendor archived it (migration 0028): no new sale starts; null is on sale. */
  archived_at: string | null;
}

export interface ProductPricesTable {
  product_id: string;
  currency: string;
  amount_minor: number;
}

export interface CustomizedProductsTable extends CustomizedProductSeatColumns {
  id: string;
  vendor_id: string;
  environment: string;
  product_id: string;
  description: string | null;
  payload: string | null;
  transaction_id_to_migrate: string | null;
  expires_at: string | null;
  user_first_name: string | null;
  user_last_name: string | null;
  user_mail: string | null;
  prices_json: string;
  created_at: string;
  /** Set by the worker once expires_at has passed (and the offer's personal data cleared). */
  expired: Generated<number>;
}

export interface CustomersTable {
  id: string;
  vendor_id: string;
  environment: string;
  email: string;
  email_lower: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
}

export interface TransactionsTable extends TransactionSeatColumns, TransactionCouponColumns, TransactionPauseColumns {
  id: string;
  vendor_id: string;
  environment: string;
  product_id: string;
  customized_product_id: string | null;
  customer_id: string;
  payment_method_id: string | null;
  email: string;
  email_lower: string;
  assigned_email: string | null;
  assigned_email_lower: string | null;
  product_name: string;
  type: string;
  status: string;
  charge_frequency: string;
  country: string;
  region: string | null;
  currency: string;
  net_minor: number;
  tax_minor: number;
  net_usd_minor: number;
  tax_rate: string;
  tax_name: string;
  payload: string | null;
  who_canceled: string | null;
  last_charge: string | null;
  next_charge: string | null;
  created_at: string;
  change_flag: string | null;
  changed_at: string | null;
  /** Bumped on every change; the feed compares it with listed_version (see feed-store). */
  change_version: number;
  listed_version: number;
  feed_pending: number;
  /** The billing schedule: periods are counted from the anchor; `next_charge` starts period `billing_period`. */
  billing_anchor: string | null;
  billing_period: Generated<number>;
  /** Declined tries of the period now due (dunning). */
  failed_attempts: Generated<number>;
  /** A worker charging this row holds it until then; a crashed worker's lease simply runs out. */
  billing_lease_until: string | null;
  /** A business buyer's company name and normalized VAT ID (migration 0012); null for a consumer. */
  business_name: string | null;
  buyer_vat_id: string | null;
  /** The buyer's ZIP or postal code as given at checkout (migration 0014). */
  postal_code: string | null;
  /** A business buyer's street and city, lines separated by newlines (migration 0015). */
  buyer_address: string | null;
  /** 1 when EU reverse charge applied: 0% charged, the buyer accounts for the VAT. */
  reverse_charge: Generated<number>;
  /**
   * When a subscription first stopped renewing (migration 0016): written by the store with the
   * status (STOPPED_SUBSCRIPTION_STATUSES), cleared when it is live again. What churn counts by.
   */
  cancelled_at: string | null;
  /** The buyer's language (a supported locale tag), the billing name, and a portal cancellation's reason (migration 0029). */
  locale: string | null;
  buyer_name: string | null;
  cancel_reason: string | null;
}

export interface LedgerEntriesTable extends EntryDiscountColumns {
  id: string;
  transaction_id: string;
  vendor_id: string;
  environment: string;
  type: string;
  created_at: string;
  currency: string;
  amount_total_minor: number;
  tax_minor: number;
  net_minor: number;
  tax_rate: string;
  income_minor: number;
  income_currency: string;
  affiliate_income_minor: number;
  service_fee_minor: number;
  transaction_fee_minor: number;
  reverses_entry_id: string | null;
  period_start: string | null;
  hash_id: string;
  external_id: string | null;
  payment_provider: string;
  country: string;
  description: string | null;
  /** The invoice's (or credit note's) number, sequential per vendor and environment. */
  invoice_number: number | null;
}

export interface InvoiceCountersTable {
  vendor_id: string;
  environment: string;
  last_number: number;
}

export interface ChargeAttemptsTable {
  id: string;
  vendor_id: string;
  environment: string;
  /** Deterministic identity, e.g. "vaulted:<idempotency>" or "renewal:<tx>:<period>". */
  attempt_key: string;
  transaction_id: string | null;
  amount_minor: number;
  currency: string;
  status: string;
  gateway_reference: string | null;
  failure_code: string | null;
  created_at: string;
  updated_at: string;
  /** PURCHASE, VAULTED, RENEWAL or REFUND. */
  kind: Generated<string>;
  /** JSON: what booking a success of this attempt writes (see src/domain/payments/charge-protocol.ts). */
  plan: string | null;
}

export interface SandboxGatewayRefundsTable {
  refund_id: string;
  charge_reference: string | null;
  amount_minor: number;
  currency: string;
  outcome: string;
  reference: string;
  created_at: string;
}

export interface IdempotencyKeysTable {
  vendor_id: string;
  environment: string;
  idempotency_key: string;
  request_hash: string;
  state: string;
  status_code: number | null;
  response_body: string | null;
  created_at: string;
}

export interface SandboxGatewayChargesTable {
  attempt_id: string;
  token: string;
  amount_minor: number;
  currency: string;
  outcome: string;
  reference: string;
  created_at: string;
}

export interface SandboxClocksTable {
  vendor_id: string;
  /** How far this vendor's sandbox runs ahead of real time. */
  offset_ms: number;
  updated_at: string;
}

export interface PanelUsersTable {
  id: string;
  vendor_id: string;
  email_lower: string;
  password_hash: string;
  created_at: string;
}

export interface PanelSessionsTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  expires_at: string;
  created_at: string;
}

/** One-time messages of a panel session (migration 0017), sealed with a key only its cookie gives. */
export interface PanelFlashesTable {
  session_hash: string;
  sealed: string;
  expires_at: string;
}

export interface AdminSessionsTable {
  /** SHA-256 of the session token. */
  id_hash: string;
  vendor_id: string;
  environment: string;
  /** The panel session (its hash) that opened it, or null for a generate-url-to-admin link. */
  opened_by: string | null;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

/** An inbound processor event, stored once when its signature checked out, acted on by the worker. */
export interface ProcessorEventsTable {
  /** `<provider>:<environment>:<event id>`. */
  id: string;
  provider: string;
  environment: string;
  event_id: string;
  type: string;
  /** The processor's time of the event. */
  created_at: string;
  payload: string;
  received_at: string;
  processed_at: string | null;
  tries: Generated<number>;
  /** Why the last try failed (a short message; never the payload). */
  last_error: string | null;
  next_try_at: string;
}

/** The customer e-mail outbox: one row per event, sent by the worker (decisions §20). */
export interface CustomerEmailsTable {
  id: string;
  vendor_id: string;
  environment: string;
  kind: string;
  /** The event that caused it (`RECEIPT:<transaction id>`, …): unique, so an event queues one e-mail. */
  event_key: string;
  transaction_id: string;
  /** JSON: what the e-mail is about (ids, dates); it is rendered when sent. */
  facts: string;
  /** PENDING, SENT, FAILED (gave up), SKIPPED (the vendor turned its kind off). */
  status: string;
  tries: Generated<number>;
  next_try_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  /** Why the last try failed: the SMTP server's answer or the connection error (no message content). */
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface Schema extends LicenceActivationTables {
  vendors: VendorsTable;
  api_credentials: ApiCredentialsTable;
  products: ProductsTable;
  product_prices: ProductPricesTable;
  customized_products: CustomizedProductsTable;
  coupons: CouponsTable;
  coupon_redemptions: CouponRedemptionsTable;
  coupon_customer_redemptions: CouponCustomerRedemptionsTable;
  customers: CustomersTable;
  payment_methods: PaymentMethodsTable;
  transactions: TransactionsTable;
  /** `book_seq`: the entry's place in the order entries were booked (migration 0025), set by the store. */
  ledger_entries: LedgerEntriesTable & { book_seq: Generated<number> };
  licences: LicencesTable;
  charge_attempts: ChargeAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  sandbox_gateway_charges: SandboxGatewayChargesTable;
  sandbox_gateway_refunds: SandboxGatewayRefundsTable;
  sandbox_clocks: SandboxClocksTable;
  invoice_counters: InvoiceCountersTable;
  panel_users: PanelUsersTable;
  panel_sessions: PanelSessionsTable;
  panel_flashes: PanelFlashesTable;
  admin_sessions: AdminSessionsTable;
  processor_events: ProcessorEventsTable;
  customer_emails: CustomerEmailsTable;
  payout_statements: PayoutStatementsTable;
  payout_statement_entries: PayoutStatementEntriesTable;
  operator_users: OperatorUsersTable;
  operator_sessions: OperatorSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  portal_sign_ins: PortalSignInsTable;
  portal_plan_switches: PortalPlanSwitchesTable;
  portal_settings: PortalSettingsTable;
  issued_invoice_buyers: IssuedInvoiceBuyersTable;
  product_images: ProductImagesTable;
}
