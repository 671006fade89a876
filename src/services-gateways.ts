import type { Config } from './config.ts';
import type { VendorClock } from './domain/clock.ts';
import type { Environment } from './domain/model.ts';
import type { CardEntry, PaymentGateway } from './domain/payments/index.ts';
import { sandboxGateway } from './gateways/sandbox-gateway.ts';
import { stripeGateway } from './gateways/stripe-gateway.ts';
import { unconfiguredGateway } from './gateways/unconfigured-gateway.ts';
import type { Database } from './store/database.ts';

// The composition root's gateways (src/services.ts): which processor each environment pays through.

/** How each environment's hosted pages take a card (opentill's form, the processor's element, or none configured). */
export interface Payments {
  cardEntry(environment: Environment): CardEntry;
  /** For /healthz: which processor takes payments in an environment, or why none does. */
  describe(environment: Environment): { processor: string | null; detail: string };
}

/** Production's and the sandbox's gateway: the tests' where given, else Stripe where it has keys, else none (production) or virtual cards (sandbox). */
export function gatewaysOf(
  config: Config,
  overrides: { gateways?: Partial<Record<Environment, PaymentGateway>>; payments?: { gatewayTimeoutMs?: number } },
  database: Database,
  clock: VendorClock,
): Record<Environment, PaymentGateway> {
  const gatewayTimeoutMs = overrides.payments?.gatewayTimeoutMs ?? config.payments.gatewayTimeoutMs;
  const stripe = (keys: NonNullable<Config['stripe']['production']>) =>
    // The SDK gives up a little before the protocol does, so its socket is closed when the attempt turns unknown.
    stripeGateway({
      keys,
      apiUrl: config.stripe.apiUrl,
      jsUrl: config.stripe.jsUrl,
      timeoutMs: Math.max(1000, gatewayTimeoutMs - 1000),
    });
  return {
    production:
      overrides.gateways?.production ??
      (config.stripe.production ? stripe(config.stripe.production) : unconfiguredGateway),
    sandbox:
      overrides.gateways?.sandbox ??
      (config.stripe.sandbox ? stripe(config.stripe.sandbox) : sandboxGateway(database.kysely, () => clock.real())),
  };
}

/** How each environment's hosted pages take a card, and which processor takes its payments (for /healthz). */
export function paymentsOf(config: Config, gateways: Record<Environment, PaymentGateway>): Payments {
  return {
    cardEntry: (environment) => gateways[environment].cardEntry,
    describe: (environment) => {
      const gateway = gateways[environment];
      const entry = gateway.cardEntry;
      if (entry.kind === 'none') return { processor: null, detail: entry.message };
      const keys = config.stripe[environment];
      const webhooks = gateway.provider !== 'STRIPE' || !!keys?.webhookSecret;
      if (entry.kind === 'form')
        return { processor: gateway.provider, detail: "virtual test cards in opentill's own form" };
      return {
        processor: gateway.provider,
        detail: webhooks
          ? `cards taken by ${entry.library} in the browser`
          : `cards taken by ${entry.library} in the browser; webhook signing secret not set (run opentill stripe setup)`,
      };
    },
  };
}
