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
  'mandate.updated',
] as const;

export interface StripeSetupReport {
  account: { id: string; livemode: boolean; chargesEnabled: boolean | null; defaultCurrency: string | null };
  webhook: { id: string; url: string; action: 'created' | 'updated' | 'unchanged'; events: readonly string[] };
  /** The new endpoint's signing secret: Stripe shows it once, at creation. */
  signingSecret: string | null;
  /** The domains registered for Apple Pay and the other wallets (`--domain`), each with what was done. */
  domains: DomainReport[];
}

export interface DomainReport {
  domain: string;
  id: string;
  action: 'created' | 'enabled' | 'unchanged';
  /** Apple Pay on the domain: `active`, or why not (Stripe's words). */
  applePay: { status: string; problem: string | null };
}

/** Stripe could not be asked, or refused the keys: `message` is one line saying what to do. */
export class StripeSetupError extends Error {}

interface StripeAccess {
  keys: StripeKeys;
  apiUrl?: string | undefined;
  /** The variable holding the secret key (`STRIPE_SECRET_KEY`, `STRIPE_SANDBOX_SECRET_KEY`), named in what to do. */
  secretKeyName?: string;
}

function client(options: StripeAccess, extra: { maxNetworkRetries?: number; timeout?: number } = {}) {
  const api = new URL(options.apiUrl ?? 'https://api.stripe.com');
  return new Stripe(options.keys.secretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === 'https:' ? 443 : 80),
    protocol: api.protocol === 'http:' ? 'http' : 'https',
    appInfo: { name: 'opentill' },
    ...extra,
  });
}

/**
 * What to do, in one line, when Stripe cannot be reached or refuses the secret key; undefined for any
 * other failure. The SDK's own words ("An error occurred with our connection to Stripe") say neither
 * where it tried nor what to check.
 */
export function stripeTrouble(err: unknown, options: StripeAccess): string | undefined {
  const e = err as { type?: string; message?: string; detail?: { code?: string; message?: string } };
  const api = new URL(options.apiUrl ?? 'https://api.stripe.com');
  if (e?.type === 'StripeConnectionError') {
    const why = (e.detail?.message || e.detail?.code || e.message || 'no answer').split('\n')[0];
    return options.apiUrl
      ? `Stripe cannot be reached at ${api.origin}, STRIPE_API_URL (${why}): check STRIPE_API_URL and that this machine can reach it`
      : `Stripe cannot be reached at ${api.host} (${why}): check that this machine can open HTTPS connections to ${api.host} (its network and DNS, a firewall, an outbound proxy)`;
  }
  if (e?.type === 'StripeAuthenticationError')
    return `Stripe refused ${options.secretKeyName ?? 'the secret key'} (${e.message ?? 'authentication failed'}). Copy the secret key again from the Stripe dashboard (Developers → API keys)`;
  return undefined;
}

/**
 * `opentill doctor`'s question: do the keys reach a Stripe account? One try, at most `timeoutMs`;
 * the account's id, or what to do (stripeTrouble) or, for anything else, what Stripe said.
 */
export async function probeStripe(
  options: StripeAccess & { timeoutMs: number },
): Promise<{ account: string; livemode: boolean } | { problem: string }> {
  try {
    const account = await client(options, {
      maxNetworkRetries: 0,
      timeout: options.timeoutMs,
    }).accounts.retrieveCurrent();
    return { account: account.id, livemode: options.keys.secretKey.includes('_live_') };
  } catch (err) {
    return { problem: stripeTrouble(err, options) ?? `Stripe answered: ${(err as Error).message}` };
  }
}

/**
 * `opentill stripe setup`: checks that the keys work (the account they belong to), and registers
 * opentill's webhook endpoint with the events it needs, or brings an existing one up to date. Stripe
 * unreachable or refusing the key is a StripeSetupError saying what to do.
 */
export async function setupStripe(
  options: StripeAccess & { webhookUrl: string; domains?: readonly string[] },
): Promise<StripeSetupReport> {
  const live = options.keys.secretKey.includes('_live_');
  if (live !== options.keys.publishableKey.includes('_live_'))
    throw new Error('The secret and publishable keys are of different modes (one live, one test).');
  const domains = (options.domains ?? []).map(domainName);
  try {
    const stripe = client(options);
    const report = await register(stripe, options.webhookUrl, live);
    for (const domain of domains) report.domains.push(await registerDomain(stripe, domain));
    return report;
  } catch (err) {
    const trouble = stripeTrouble(err, options);
    throw trouble ? new StripeSetupError(trouble, { cause: err }) : err;
  }
}

async function register(stripe: Stripe, webhookUrl: string, live: boolean): Promise<StripeSetupReport> {
  const account = await stripe.accounts.retrieveCurrent();
  const endpoints = await stripe.webhookEndpoints.list({ limit: 100 });
  const existing = endpoints.data.find((e) => e.url === webhookUrl);
  const events = [...STRIPE_EVENTS];
  let webhook: StripeSetupReport['webhook'];
  let signingSecret: string | null = null;
  if (!existing) {
    const created = await stripe.webhookEndpoints.create({
      url: webhookUrl,
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
    domains: [],
  };
}

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * A `--domain` as Stripe takes it: a host name alone, lower case. A URL, a port, an address or a name
 * without a dot is refused before Stripe is asked, saying what to give instead.
 */
export function domainName(given: string): string {
  const name = given.trim().toLowerCase().replace(/\.$/, '');
  if (HOST_NAME.test(name)) return name;
  const host = /^[a-z]+:\/\/([^/:?#]+)/.exec(name)?.[1];
  throw new StripeSetupError(
    host
      ? `--domain takes a host name, not a URL: give --domain ${host}`
      : `--domain ${given} is not a public host name (such as shop.example.com); Apple Pay works only on a domain with a certificate, not on an address or localhost`,
  );
}

/**
 * Registers a domain for Apple Pay, Google Pay, Link and PayPal in the Payment Element (Stripe's payment
 * method domains), once: a domain already registered is left as it is, or enabled again if it was
 * disabled, so running setup again changes nothing.
 */
async function registerDomain(stripe: Stripe, domain: string): Promise<DomainReport> {
  const found = (await stripe.paymentMethodDomains.list({ domain_name: domain, limit: 1 })).data[0];
  let action: DomainReport['action'] = 'unchanged';
  let registered = found;
  if (!registered) {
    registered = await stripe.paymentMethodDomains.create({ domain_name: domain, enabled: true });
    action = 'created';
  } else if (!registered.enabled) {
    registered = await stripe.paymentMethodDomains.update(registered.id, { enabled: true });
    action = 'enabled';
  }
  const applePay = registered.apple_pay;
  return {
    domain,
    id: registered.id,
    action,
    applePay: { status: applePay.status, problem: applePay.status_details?.error_message ?? null },
  };
}
