import { changeFeed, type ChangesOptions } from './changes.ts';
import type {
  Cancelled,
  Coupon,
  ChangedTransaction,
  ChangePage,
  CustomizedProduct,
  LicenceStatus,
  LicenceState,
  ActivatedLicence,
  MarkedProcessed,
  PauseResult,
  QuantityChange,
  Product,
  PublicPrice,
  RefundResult,
  SandboxClock,
  Transaction,
  TransactionWithEntries,
  UrlResult,
  VaultedCharge,
} from './model.ts';
import * as shape from './normalise.ts';
import { Transport, type CallOptions, type TransportOptions } from './transport.ts';
import type {
  WireCancelled,
  WireCoupon,
  WireCreateCouponBody,
  WireChangedTransaction,
  WireChargeVaultedBody,
  WireClockReading,
  WireCreateProductBody,
  WireCustomizeBody,
  WireCustomizeResult,
  WireLicenceStatus,
  WireLicenceState,
  WireActivatedLicence,
  WireListedTransaction,
  WireMarkedProcessed,
  WirePauseBody,
  WirePauseResult,
  WireQuantityChange,
  WireProduct,
  WirePublicPrice,
  WireRefundBody,
  WireRefundPending,
  WireRefundRecord,
  WireTransactionWithEntries,
  WireUpdatedTransaction,
  WireUpdateProductBody,
  WireUrlResult,
  WireVaultedCharge,
} from './wire.ts';

export type OpenTillOptions = TransportOptions;
export type { CallOptions };

const segment = encodeURIComponent;

/**
 * A client of one environment's /v1 API: `baseUrl` is {base_url} (production) or {sandbox_url}
 * (sandbox), `credential` that environment's `API_LOGIN:API_PASSWORD`.
 */
export class OpenTill {
  readonly #transport: Transport;

  constructor(options: OpenTillOptions) {
    this.#transport = new Transport(options);
  }

  async #get<T>(path: string, options?: CallOptions): Promise<T> {
    return (await this.#transport.call({ method: 'GET', path, options })).body as T;
  }

  async #post<T>(path: string, body: unknown, options?: CallOptions) {
    const answer = await this.#transport.call({ method: 'POST', path, body, options });
    return { ...answer, body: answer.body as T, idempotencyKey: answer.idempotencyKey! };
  }

  /** GET /v1/transactions/{email}: a customer's transactions (purchase or assigned e-mail), newest first. */
  async listTransactionsByEmail(email: string, options?: CallOptions): Promise<Transaction[]> {
    const list = await this.#get<WireListedTransaction[]>(`/transactions/${segment(email)}`, options);
    return list.map(shape.transaction);
  }

  /** GET /v1/transaction/{id}: one transaction with its ledger entries. */
  async readTransaction(transactionId: string, options?: CallOptions): Promise<TransactionWithEntries> {
    const raw = await this.#get<WireTransactionWithEntries>(`/transaction/${segment(transactionId)}`, options);
    return shape.transactionWithEntries(raw);
  }

  /** POST /v1/transaction/{id} with `assignEmail`: the customer's sign-up e-mail on your site. */
  async assignEmail(transactionId: string, email: string, options?: CallOptions): Promise<Transaction> {
    const path = `/transaction/${segment(transactionId)}`;
    return shape.transaction((await this.#post<WireUpdatedTransaction>(path, { assignEmail: email }, options)).body);
  }

  /** POST /v1/transaction/{id} with `payload`: replaces the custom payload (fewer than 5000 characters, or null). */
  async updatePayload(transactionId: string, payload: string | null, options?: CallOptions): Promise<Transaction> {
    const path = `/transaction/${segment(transactionId)}`;
    return shape.transaction((await this.#post<WireUpdatedTransaction>(path, { payload }, options)).body);
  }

  /** POST /v1/cancel-subscription/{id}: at the end of the paid period; `changed: false` if already cancelled. */
  async cancelSubscription(transactionId: string, options?: CallOptions): Promise<Cancelled> {
    const path = `/cancel-subscription/${segment(transactionId)}`;
    return shape.withRaw((await this.#post<WireCancelled>(path, undefined, options)).body);
  }

  /** POST /v1/pause-subscription/{id} (opentill's own): paused from the end of the paid period, until `resumeAt` or a resume. */
  async pauseSubscription(transactionId: string, pause?: WirePauseBody, options?: CallOptions): Promise<PauseResult> {
    const path = `/pause-subscription/${segment(transactionId)}`;
    return shape.withRaw((await this.#post<WirePauseResult>(path, pause ?? {}, options)).body);
  }

  /** POST /v1/resume-subscription/{id} (opentill's own): a new period starts and is charged now; before the pause began, it is called off. */
  async resumeSubscription(transactionId: string, options?: CallOptions): Promise<PauseResult> {
    const path = `/resume-subscription/${segment(transactionId)}`;
    return shape.withRaw((await this.#post<WirePauseResult>(path, undefined, options)).body);
  }

  /** POST /v1/update-quantity/{id} (opentill's own): more seats now, fewer at the end of the paid period. */
  async updateQuantity(transactionId: string, quantity: number, options?: CallOptions): Promise<QuantityChange> {
    const path = `/update-quantity/${segment(transactionId)}`;
    return shape.withRaw((await this.#post<WireQuantityChange>(path, { quantity }, options)).body);
  }

  /**
   * POST /v1/refund-transaction/{id}: without `refund`, what is left of the latest payment; with it, part
   * of a payment (opentill's own). PENDING: call again with the result's `idempotencyKey`.
   */
  async refundTransaction(
    transactionId: string,
    refund?: WireRefundBody,
    options?: CallOptions,
  ): Promise<RefundResult> {
    const path = `/refund-transaction/${segment(transactionId)}`;
    const answer = await this.#post<WireRefundRecord[] | WireRefundPending>(path, refund, options);
    const { idempotencyKey } = answer;
    if (answer.status === 202 || !Array.isArray(answer.body)) {
      const raw = answer.body as WireRefundPending;
      return { status: 'PENDING', message: raw.message, idempotencyKey, raw };
    }
    return { status: 'REFUNDED', refunds: answer.body.map(shape.refundRecord), idempotencyKey, raw: answer.body };
  }

  /** POST /v1/charge-vaulted/{id}: a decline is `status: 'FAILED'`, not an error; PENDING: call again with the `idempotencyKey`. */
  async chargeVaulted(
    transactionId: string,
    charge: WireChargeVaultedBody,
    options?: CallOptions,
  ): Promise<VaultedCharge> {
    const path = `/charge-vaulted/${segment(transactionId)}`;
    const { body, idempotencyKey } = await this.#post<WireVaultedCharge>(path, charge, options);
    return { ...body, status: body.status as VaultedCharge['status'], idempotencyKey, raw: body };
  }

  /** POST /v1/customize-product/{productId}: custom prices (USD required), expiry, prefilled user or a migration. */
  async customizeProduct(
    productId: string,
    product: WireCustomizeBody,
    options?: CallOptions,
  ): Promise<CustomizedProduct> {
    const path = `/customize-product/${segment(productId)}`;
    return shape.customizedProduct((await this.#post<WireCustomizeResult>(path, product, options)).body);
  }

  /** GET /v1/check-licence/{productId}/{licence}: ACTIVE, INACTIVE or NOT_FOUND. */
  async checkLicence(productId: string, licence: string, options?: CallOptions): Promise<LicenceStatus> {
    const path = `/check-licence/${segment(productId)}/${segment(licence)}`;
    return shape.withRaw(await this.#get<WireLicenceStatus>(path, options));
  }

  /** GET /v1/licences/{key} (opentill's own): the key's status, activation limit and instances. */
  async readLicence(key: string, options?: CallOptions): Promise<LicenceState> {
    return shape.withRaw(await this.#get<WireLicenceState>(`/licences/${segment(key)}`, options));
  }

  /** POST /v1/licences/{key}/activate (opentill's own): takes a slot; the same name again is the same instance. */
  async activateLicence(key: string, instanceName: string, options?: CallOptions): Promise<ActivatedLicence> {
    const path = `/licences/${segment(key)}/activate`;
    return shape.withRaw((await this.#post<WireActivatedLicence>(path, { instanceName }, options)).body);
  }

  /** POST /v1/licences/{key}/deactivate (opentill's own): frees the instance's slot. */
  async deactivateLicence(key: string, instanceId: string, options?: CallOptions): Promise<LicenceState> {
    const path = `/licences/${segment(key)}/deactivate`;
    return shape.withRaw((await this.#post<WireLicenceState>(path, { instanceId }, options)).body);
  }

  /** GET /v1/generate-url-to-manage-transactions/{email}: the customer's management page, valid for an hour. */
  async generateManageTransactionsUrl(customerEmail: string, options?: CallOptions): Promise<UrlResult> {
    const path = `/generate-url-to-manage-transactions/${segment(customerEmail)}`;
    return shape.withRaw(await this.#get<WireUrlResult>(path, options));
  }

  /** GET /v1/generate-url-to-admin: the admin tool for an iframe, to open within 15 minutes. */
  async generateAdminUrl(options?: CallOptions): Promise<UrlResult> {
    return shape.withRaw(await this.#get<WireUrlResult>('/generate-url-to-admin', options));
  }

  /** GET /v1/changed-transactions: one page of the change feed, oldest change first. */
  async listChangedTransactions(query: { limit?: number } = {}, options?: CallOptions): Promise<ChangePage> {
    const search = query.limit === undefined ? '' : `?limit=${query.limit}`;
    const answer = await this.#transport.call({ method: 'GET', path: `/changed-transactions${search}`, options });
    const changes = (answer.body as WireChangedTransaction[]).map(shape.changedTransaction);
    return { changes, more: answer.headers.get('x-more-changes') === 'true' };
  }

  /** POST /v1/changed-transactions/{id}: marks a changed transaction processed. */
  async markTransactionProcessed(transactionId: string, options?: CallOptions): Promise<MarkedProcessed> {
    const path = `/changed-transactions/${segment(transactionId)}`;
    return shape.withRaw((await this.#post<WireMarkedProcessed>(path, undefined, options)).body);
  }

  /**
   * Every change of the feed, each marked processed only once the loop body that received it has
   * finished and asks for the next: a `throw` (or `break`) in the body leaves that change in the feed.
   * Ends when the feed is empty, unless `watch` keeps polling.
   */
  changes(options: ChangesOptions = {}): AsyncGenerator<ChangedTransaction, void, undefined> {
    return changeFeed(
      {
        list: (limit, signal) => this.listChangedTransactions({ limit }, { signal }),
        mark: (id, signal) => this.markTransactionProcessed(id, { signal }),
      },
      options,
    );
  }

  /** GET /v1/products (opentill's own): this environment's products, oldest first; `archived` filters. */
  async listProducts(query: { archived?: boolean } = {}, options?: CallOptions): Promise<Product[]> {
    const search = query.archived === undefined ? '' : `?archived=${query.archived}`;
    return (await this.#get<WireProduct[]>(`/products${search}`, options)).map(shape.withRaw);
  }

  /** GET /v1/products/{id} (opentill's own): one product, archived or not. */
  async readProduct(productId: string, options?: CallOptions): Promise<Product> {
    return shape.withRaw(await this.#get<WireProduct>(`/products/${segment(productId)}`, options));
  }

  /** POST /v1/products (opentill's own): a new product, checked as the panel and the CLI check it. */
  async createProduct(product: WireCreateProductBody, options?: CallOptions): Promise<Product> {
    return shape.withRaw((await this.#post<WireProduct>('/products', product, options)).body);
  }

  /** POST /v1/products/{id} (opentill's own): changes what `changes` names; the rest stays. */
  async updateProduct(productId: string, changes: WireUpdateProductBody, options?: CallOptions): Promise<Product> {
    const path = `/products/${segment(productId)}`;
    return shape.withRaw((await this.#post<WireProduct>(path, changes, options)).body);
  }

  /** POST /v1/products/{id}/archive (opentill's own): no new sale starts on it; never deleted. */
  async archiveProduct(productId: string, options?: CallOptions): Promise<Product> {
    const path = `/products/${segment(productId)}/archive`;
    return shape.withRaw((await this.#post<WireProduct>(path, undefined, options)).body);
  }

  /** POST /v1/products/{id}/unarchive (opentill's own): on sale again. */
  async unarchiveProduct(productId: string, options?: CallOptions): Promise<Product> {
    const path = `/products/${segment(productId)}/unarchive`;
    return shape.withRaw((await this.#post<WireProduct>(path, undefined, options)).body);
  }

  /** GET /v1/coupons (opentill's own): this environment's coupons, revoked ones included. */
  async listCoupons(options?: CallOptions): Promise<Coupon[]> {
    return (await this.#get<WireCoupon[]>('/coupons', options)).map(shape.withRaw);
  }

  /** GET /v1/coupons/{id} (opentill's own): one coupon, with its redemptions. */
  async readCoupon(couponId: string, options?: CallOptions): Promise<Coupon> {
    return shape.withRaw(await this.#get<WireCoupon>(`/coupons/${segment(couponId)}`, options));
  }

  /** POST /v1/coupons (opentill's own): a coupon with its duration, caps and restrictions. */
  async createCoupon(coupon: WireCreateCouponBody, options?: CallOptions): Promise<Coupon> {
    return shape.withRaw((await this.#post<WireCoupon>('/coupons', coupon, options)).body);
  }

  /** POST /v1/coupons/{id}/revoke (opentill's own): no new purchase uses it; a retry changes nothing. */
  async revokeCoupon(couponId: string, options?: CallOptions): Promise<Coupon> {
    return shape.withRaw(
      (await this.#post<WireCoupon>(`/coupons/${segment(couponId)}/revoke`, undefined, options)).body,
    );
  }

  /**
   * GET /public/v1/price/{productId} (no credential needed): the price a customer in `country` (and US
   * `zip`) pays, tax included, as the client script shows it.
   */
  async getPublicPrice(
    productId: string,
    where: { country?: string; zip?: string } = {},
    options?: CallOptions,
  ): Promise<PublicPrice> {
    const query = new URLSearchParams(Object.entries(where).filter((e): e is [string, string] => e[1] !== undefined));
    const search = String(query) ? `?${query}` : '';
    const answer = await this.#transport.call({
      method: 'GET',
      api: 'public/v1',
      path: `/price/${segment(productId)}${search}`,
      options,
    });
    return shape.withRaw(answer.body as WirePublicPrice);
  }

  /** GET /v1/clock (sandbox only): the sandbox's time and how far its billing has caught up. */
  async readSandboxClock(options?: CallOptions): Promise<SandboxClock> {
    return shape.withRaw(await this.#get<WireClockReading>('/clock', options));
  }

  /** POST /v1/clock/advance (sandbox only): moves the sandbox's time forward by `seconds` or `to` an instant. */
  async advanceSandboxClock(by: { seconds: number } | { to: string }, options?: CallOptions): Promise<SandboxClock> {
    return shape.withRaw((await this.#post<WireClockReading>('/clock/advance', by, options)).body);
  }
}
