import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import type { BillingOptions } from '../../src/domain/billing/billing.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { IssuedCredential } from '../../src/domain/accounts/credentials.ts';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import type { Environment, Product, Scope, Vendor } from '../../src/domain/model.ts';
import type { NewProduct } from '../../src/domain/catalog/catalog.ts';
import type { PurchaseRequest } from '../../src/domain/checkout/purchases.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { buildApp } from '../../src/http/app.ts';
import { createServices, type ServiceOverrides, type Wiring } from '../../src/services.ts';
import { freshDatabase, type StoreKind } from '../../support/databases.ts';
import type { Database } from '../../src/store/database.ts';
import { TEST_PASSWORD_HASH_COST } from './test-settings.ts';

/**
 * A real server on a real database, listening on a free port of 127.0.0.1. Tests speak HTTP to
 * it with fetch. Production's payment network is the only stand-in: the sandbox gateway plays it,
 * since no real provider can be reached from here.
 */
export interface TestApp {
  kind: StoreKind;
  url: string;
  services: Wiring;
  app: FastifyInstance;
  config: Config;
  /** A vendor with credentials for both environments. */
  newVendor(name?: string): Promise<TestVendor>;
  close(): Promise<void>;
}

export interface TestVendor {
  vendor: Vendor;
  credentials: Record<Environment, IssuedCredential>;
  scope(environment?: Environment): Scope;
  /** fetch against this vendor's environment with its Authorization header. */
  api(path: string, init?: ApiInit): Promise<ApiResponse>;
  product(input: Partial<NewProduct> & { type: string }, environment?: Environment): Promise<Product>;
  buy(productId: string, input?: Partial<PurchaseRequest>, environment?: Environment): Promise<string>;
}

export interface ApiInit {
  method?: string;
  body?: unknown;
  /** Raw body text, sent as is. */
  rawBody?: string;
  headers?: Record<string, string>;
  environment?: Environment;
  /** Authorization header value to send instead of the vendor's own ('' sends none). */
  authorization?: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export const TEST_CARD = { number: '4242424242424242', expMonth: 12, expYear: 2035 };

/** The seller details every test vendor has: all a production checkout needs. */
export const TEST_SELLER = (name: string, country = 'US') => ({
  sellerName: name,
  address: ['1 Test Street', 'Testville'],
  country,
  taxId: 'TEST-0001',
});

export async function startTestApp(
  kind: StoreKind,
  options: {
    clock?: Clock;
    gateways?: Partial<Record<Environment, PaymentGateway>>;
    billing?: BillingOptions;
    payments?: ServiceOverrides['payments'];
    emails?: ServiceOverrides['emails'];
    env?: Record<string, string>;
    port?: number;
    /** Another app's database: this app stands for a second process on it (and leaves it to its owner to drop). */
    database?: Database;
  } = {},
): Promise<TestApp> {
  const { database, drop } = options.database
    ? { database: options.database, drop: async () => {} }
    : await freshDatabase(kind);
  const config = loadConfig({
    OPENTILL_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    OPENTILL_DATA_DIR: '/tmp/opentill-test-data',
    BASE_URL: 'http://opentill.test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_CREDENTIAL: '100000',
    RATE_LIMIT_PER_ADDRESS: '100000',
    AUTH_FAILURES_PER_MINUTE: '100000',
    // Tests open many checkouts from one address; the checkout's own limits are tested with their defaults ('').
    CHECKOUT_SESSIONS_PER_ADDRESS: '100000',
    CHECKOUT_SESSIONS_PER_PRODUCT: '100000',
    CHECKOUT_QUOTES_PER_ADDRESS: '100000',
    CHECKOUT_QUOTES_PER_PRODUCT: '100000',
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    ...options.env,
  });
  const services = createServices(config, {
    database,
    clock: options.clock,
    gateways: { production: sandboxGateway(database.kysely), ...options.gateways },
    billing: options.billing,
    payments: options.payments,
    emails: options.emails,
  });
  const app = await buildApp(services, { logger: false });
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  async function request(path: string, init: ApiInit, authorization: string | undefined): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (authorization) headers.authorization = authorization;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const prefix = init.environment === 'production' ? '' : '/sandbox';
    const res = await fetch(`${url}${path.startsWith('/v1') ? prefix : ''}${path}`, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  return {
    kind,
    url,
    services,
    app,
    config,
    async newVendor(name = 'Test Vendor') {
      // A complete seller identity (docs/decisions.md §24): production checkout is closed without one.
      // Its country is SELLER_COUNTRY's when a test sets one, so reverse charge is decided as before.
      const created = await services.catalog.createVendor({ name, email: 'owner@vendor.test' });
      const vendor = await services.catalog.updateVendorSettings(created.id, TEST_SELLER(name, config.sellerCountry));
      const credentials = {
        production: await services.credentials.issue({ vendorId: vendor.id, environment: 'production' }),
        sandbox: await services.credentials.issue({ vendorId: vendor.id, environment: 'sandbox' }),
      };
      const scope = (environment: Environment = 'sandbox') => ({ vendorId: vendor.id, environment });
      return {
        vendor,
        credentials,
        scope,
        api: (path, init = {}) => {
          const environment = init.environment ?? 'sandbox';
          return request(
            path,
            { ...init, environment },
            init.authorization !== undefined ? init.authorization || undefined : credentials[environment].authorization,
          );
        },
        product: (input, environment = 'sandbox') =>
          services.catalog.createProduct(scope(environment), {
            name: 'Product',
            prices: [{ currency: 'USD', value: 20 }],
            ...input,
          }),
        async buy(productId, input = {}, environment = 'sandbox') {
          const result = await services.purchases.purchase(scope(environment), {
            productId,
            email: 'customer@example.com',
            country: 'US',
            card: TEST_CARD,
            ...input,
          });
          if (result.status !== 'PAID') throw new Error(`purchase declined: ${result.message}`);
          return result.transaction.id;
        },
      };
    },
    async close() {
      services.emails.close();
      await app.close();
      await drop();
    },
  };
}

/**
 * Starts a test app with one vendor before the enclosing suite's tests and closes it after them;
 * `bind` receives both, for the suite's own variables.
 */
export function useTestApp(
  kind: StoreKind,
  options: Parameters<typeof startTestApp>[1],
  bind: (app: TestApp, vendor: TestVendor) => void,
  vendorName?: string,
) {
  let app: TestApp | undefined;
  before(async () => {
    app = await startTestApp(kind, options);
    bind(app, await app.newVendor(vendorName));
  });
  after(() => app?.close());
}

/** Runs `fn` once per available store, as `describe` blocks named after the store. */
export { storeKinds } from '../../support/databases.ts';
