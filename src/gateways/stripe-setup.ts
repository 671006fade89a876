import Stripe from 'stripe';
import type { StripeKeys } from '../config.ts';

/** The Stripe events opentill acts on (src/gateways/stripe-gateway.ts, translate). */
export const STRIPE_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.requires_action',
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
  'charge.refunded',
  'charge.refund.updated',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'charge.dispute.created',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
] as const;

export interface StripeSetupReport {
  account: { id: string; livemode: boolean; chargesEnabled: boolean | null; defaultCurrency: string | null };
  webhook: { id: string; url: string; action: 'created' | 'updated' | 'unchanged'; events: readonly string[] };
  /** The new endpoint's signing secret: Stripe shows it once, at creation. */
  signingSecret: string | null;
}

/**
 * `opentill stripe setup`: checks that the keys work (the account they belong to), and registers
 * opentill's webhook endpoint with the events it needs, or brings an existing one up to date.
 */
export async function setupStripe(options: {
  keys: StripeKeys;
  apiUrl?: string | undefined;
  webhookUrl: string;
}): Promise<StripeSetupReport> {
  const api = new URL(options.apiUrl ?? 'https://api.stripe.com');
  const stripe = new Stripe(options.keys.secretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === 'https:' ? 443 : 80),
    protocol: api.protocol === 'http:' ? 'http' : 'https',
    appInfo: { name: 'opentill' },
  });
  const live = options.keys.secretKey.includes('_live_');
  if (live !== options.keys.publishableKey.includes('_live_'))
    throw new Error('The secret and publishable keys are of different modes (one live, one test).');
  const account = await stripe.accounts.retrieveCurrent();
  const endpoints = await stripe.webhookEndpoints.list({ limit: 100 });
  const existing = endpoints.data.find((e) => e.url === options.webhookUrl);
  const events = [...STRIPE_EVENTS];
  let webhook: StripeSetupReport['webhook'];
  let signingSecret: string | null = null;
  if (!existing) {
    const created = await stripe.webhookEndpoints.create({
      url: options.webhookUrl,
      enabled_events: events,
      description: 'opentill',
    });
    signingSecret = created.secret ?? null;
    webhook = { id: created.id, url: created.url, action: 'created', events };
  } else {
    const missing = events.filter(
      (e) => !existing.enabled_events.includes(e) && !existing.enabled_events.includes('*'),
    );
    if (missing.length)
      await stripe.webhookEndpoints.update(existing.id, {
        enabled_events: [...new Set([...existing.enabled_events, ...events])] as never,
      });
    webhook = { id: existing.id, url: existing.url, action: missing.length ? 'updated' : 'unchanged', events };
  }
  return {
    account: {
      id: account.id,
      livemode: live,
      chargesEnabled: account.charges_enabled ?? null,
      defaultCurrency: account.default_currency ?? null,
    },
    webhook,
    signingSecret,
  };
}
