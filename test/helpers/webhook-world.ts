import { loadConfig } from '../../src/config.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { EmailSender, OutgoingEmail } from '../../src/domain/notifications/index.ts';
import type { Environment, Scope } from '../../src/domain/model.ts';
import type { WebhookOptions, WebhookTransport } from '../../src/domain/webhooks/index.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { createServices, type Wiring } from '../../src/services.ts';
import { freshDatabase, type StoreKind } from '../../support/databases.ts';
import { TEST_CARD, TEST_SELLER } from './test-app.ts';

export const SECRET = 'webhook-test-secret-0123456789-0123456789';

/**
 * Services on a fresh database for the webhook tests, with a clock the test moves, the sandbox's
 * gateway on that clock, a vendor, and the vendor e-mails (an endpoint disabled) caught in `mails`.
 */
export async function webhookWorld(
  kind: StoreKind,
  options: { webhooks?: WebhookOptions; transport?: WebhookTransport; env?: Record<string, string> } = {},
) {
  const store = await freshDatabase(kind);
  const clock = fixedClock(new Date('2030-03-01T09:00:00.000Z'));
  const config = loadConfig({
    OPENTILL_SECRET: SECRET,
    OPENTILL_DATA_DIR: '/tmp/opentill-webhook-test',
    LOG_LEVEL: 'silent',
    SMTP_URL: 'smtp://127.0.0.1:1',
    SMTP_FROM: 'ops@opentill.test',
    ...options.env,
  });
  const mails: OutgoingEmail[] = [];
  const sender: EmailSender = {
    send: async (email) => {
      mails.push(email);
      return { status: 'SENT' };
    },
    close: () => {},
  };
  const services: Wiring = createServices(config, {
    database: store.database,
    clock,
    gateways: {
      sandbox: sandboxGateway(store.database.kysely, () => clock.now()),
      production: sandboxGateway(store.database.kysely, () => clock.now()),
    },
    emails: { sender },
    webhooks: { options: { retryDelaysMs: undefined, ...options.webhooks }, sender, transport: options.transport },
  });
  const created = await services.catalog.createVendor({ name: 'Hooked Ltd', email: 'owner@hooked.test' });
  const vendor = await services.catalog.updateVendorSettings(created.id, TEST_SELLER('Hooked Ltd'));
  const scope = (environment: Environment = 'sandbox'): Scope => ({ vendorId: vendor.id, environment });
  return {
    services,
    clock,
    vendor,
    scope,
    mails,
    store: services.store,
    async subscription(email = 'buyer@example.com', environment: Environment = 'sandbox') {
      const product = await services.catalog.createProduct(scope(environment), {
        name: 'Monthly',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20 }],
      } as never);
      const result = await services.purchases.purchase(scope(environment), {
        productId: product.id,
        email,
        country: 'US',
        card: TEST_CARD,
      });
      if (result.status !== 'PAID') throw new Error(`purchase declined: ${result.message}`);
      return result.transaction.id;
    },
    /** The outbox's events of the vendor, oldest first. */
    async events(environment: Environment = 'sandbox') {
      return (await services.webhooks.log(scope(environment), { limit: 1000 })).reverse();
    },
    async close() {
      await services.close().catch(() => {});
      await store.drop();
    },
  };
}

export type WebhookWorld = Awaited<ReturnType<typeof webhookWorld>>;
