import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { loadSecret, restrictToOwner } from './config-files.ts';
import { sellerOfRecordOf } from './config-seller.ts';
import { PASSWORD_COSTS } from './domain/accounts/index.ts';
import type { SellerOfRecord } from './domain/model.ts';

/**
 * Everything configurable, read once from the environment at start-up into a frozen object.
 * Nothing else in opentill reads process.env.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** `{base_url}`: production API and hosted pages. */
  readonly baseUrl: string;
  /** `{sandbox_url}`: the sandbox, by default the same server under /sandbox. */
  readonly sandboxUrl: string;
  readonly databaseUrl: string | undefined;
  /** A path, or `:memory:` for a database that lives only as long as the process. */
  readonly sqliteFile: string;
  /** Private to the account opentill runs as: the directory 0700, the files opentill writes in it 0600. */
  readonly dataDir: string;
  /** Keys the HMAC of API passwords and signs hosted links. */
  readonly secret: string;
  /** Where the secret came from: OPENTILL_SECRET, or the file `<dataDir>/secret`. */
  readonly secretSource: 'environment' | 'file';
  /** A process a `serve --processes` primary started (it set CLUSTER_WORKER_VARIABLE): it serves, it does not fork. */
  readonly clusterWorker: boolean;
  /**
   * The exchange-rate table to load: RATES_FILE, else the one `opentill rates import` wrote
   * (`importedRatesFile`) when it exists, else undefined for the bundled table.
   */
  readonly ratesFile: string | undefined;
  /** Where `opentill rates import` writes the table: `<dataDir>/exchange-rates.xml`. */
  readonly importedRatesFile: string;
  /** Every ECB day `opentill rates import` was given, for tax returns: `<dataDir>/exchange-rates-history.xml`. */
  readonly ratesHistoryFile: string;
  /**
   * The ZIP-level US sales tax table to load: SALES_TAX_FILE, else the one `opentill tax import` wrote
   * (`importedSalesTaxFile`) when it exists, else undefined (state rates, shown as estimated).
   */
  readonly salesTaxFile: string | undefined;
  /** Where `opentill tax import` writes the table: `<dataDir>/us-sales-tax.csv`. */
  readonly importedSalesTaxFile: string;
  /** SELLER_COUNTRY: the seller's country for EU reverse charge when the vendor has none set; undefined: no reverse charge. */
  readonly sellerCountry: string | undefined;
  /** SELLER_OF_RECORD (src/config-seller.ts, docs/decisions.md §24): each vendor sells for itself, or the operator for all. */
  readonly sellerOfRecord: SellerOfRecord;
  /** PAYOUT_HOLD_DAYS (14): how many days a payment is held back from payout statements, for refunds and disputes. */
  readonly payoutHoldDays: number;
  /** PLATFORM_FEE as written (`5%+0.50USD`, `0` by default): the platform's fee on each payment, checked when the services start. */
  readonly platformFee: string;
  /** WEBHOOKS_ALLOW_PRIVATE=true: production webhook endpoints may be private addresses too (the sandbox's always may). */
  readonly webhooksAllowPrivate: boolean;
  /** Which peers may name the client's address in X-Forwarded-For: none, or Fastify's comma-separated list of addresses and CIDR ranges. */
  readonly trustProxy: false | string;
  readonly logLevel: string;
  readonly rateLimit: {
    readonly perCredentialPerMinute: number;
    readonly perAddressPerMinute: number;
    readonly authFailuresPerMinute: number;
    /** Licence requests that send a key without a credential, a minute per client address (LICENCE_KEY_REQUESTS_PER_ADDRESS, 60). */
    readonly licenceKeyPerAddress: number;
    /**
     * The hosted checkout's own limits, a minute each, per client address and per product: sessions
     * (each makes a customer and a payment at the processor; CHECKOUT_SESSIONS_PER_ADDRESS, 10, and
     * CHECKOUT_SESSIONS_PER_PRODUCT, 60) and quotes (a price asked again as the buyer types;
     * CHECKOUT_QUOTES_PER_ADDRESS, 60, and CHECKOUT_QUOTES_PER_PRODUCT, 600).
     */
    readonly checkout: {
      readonly sessionsPerAddress: number;
      readonly sessionsPerProduct: number;
      readonly quotesPerAddress: number;
      readonly quotesPerProduct: number;
    };
  };
  /**
   * REDIS_URL: where every process counts the rate limits together (`redis://` or `rediss://`);
   * unset, each process counts alone. REDIS_KEY_PREFIX keeps installs sharing one Redis apart.
   */
  readonly redis: { readonly url: string; readonly keyPrefix: string } | undefined;
  readonly seedDemo: boolean;
  /**
   * PANEL_SIGNUP: who may make a vendor account in the panel (docs/decisions.md §19). `closed`, the
   * default: nobody, the operator makes vendors with the CLI; `invite`: whoever holds a link from
   * `opentill vendor invite --email`; `open`: anyone, the new vendor in the sandbox only until the
   * operator runs `opentill vendor enable-production`.
   */
  readonly panelSignup: 'closed' | 'invite' | 'open';
  /** METRICS_TOKEN: /metrics answers a request bearing it (`Authorization: Bearer …`); unset, /metrics is off. */
  readonly metricsToken: string | undefined;
  /** The billing worker: run inside `serve` (OPENTILL_WORKER=false turns it off), how often, and its lease. */
  readonly billing: {
    readonly runInServer: boolean;
    readonly intervalSeconds: number;
    readonly leaseSeconds: number;
    readonly batchSize: number;
  };
  /** A gateway call unanswered after GATEWAY_TIMEOUT_SECONDS is UNKNOWN; the reconciler asks about attempts older than RECONCILE_AFTER_SECONDS. */
  /** IDEMPOTENCY_STALE_SECONDS: a key "in progress" this long belongs to a request whose process died, and its retry takes it over. */
  readonly payments: {
    readonly gatewayTimeoutMs: number;
    readonly reconcileGraceMs: number;
    readonly idempotencyStaleMs: number;
  };
  /**
   * Stripe, per environment: production takes real payments through it when its three keys are set;
   * the sandbox runs through Stripe's test mode when STRIPE_SANDBOX_* are set, else on virtual cards.
   * `apiUrl` and `jsUrl` point the SDK and the browser at another host (the tests' stand-in).
   */
  readonly stripe: {
    readonly production: StripeKeys | undefined;
    readonly sandbox: StripeKeys | undefined;
    readonly apiUrl: string | undefined;
    readonly jsUrl: string;
  };
  /**
   * Customer e-mails (receipts, notices): sent through SMTP_URL (`smtp://` or `smtps://`, user and
   * password in the URL) from SMTP_FROM; unset, opentill sends nothing and records nothing to send.
   */
  readonly smtp:
    { readonly url: string; readonly from: string; readonly sandboxTo: 'vendor' | 'customers' } | undefined;
  /**
   * PASSWORD_HASH_COST (15): log2 of scrypt's N for new panel and console passwords, 10 to 17. A
   * stored hash is checked at the cost written in it, so a change takes effect as passwords are set.
   */
  readonly passwordHashCost: number;
  /** Paths of opentill's own that were readable by others and were made private while loading: what `serve` reports. */
  readonly tightenedPermissions: readonly string[];
}

export interface StripeKeys {
  readonly secretKey: string;
  readonly publishableKey: string;
  /** Unset until `opentill stripe setup` registered the webhook endpoint and printed its signing secret. */
  readonly webhookSecret: string | undefined;
}

function redisSettings(env: NodeJS.ProcessEnv): Config['redis'] {
  if (!env.REDIS_URL) return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(env.REDIS_URL))
    throw new Error('REDIS_URL must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379).');
  return Object.freeze({ url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX || 'opentill-rate-limit:' });
}

/** SMTP_URL and SMTP_FROM together, or neither: half a configuration would fail only when the first e-mail is due. */
function smtpSettings(env: NodeJS.ProcessEnv): Config['smtp'] {
  const url = env.SMTP_URL || undefined;
  const from = env.SMTP_FROM?.trim() || undefined;
  if (!url && !from) return undefined;
  if (!url)
    throw new Error(
      'SMTP_FROM is set but SMTP_URL is not: set SMTP_URL (smtp://user:password@host:587 or smtps://…:465).',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL (e.g. smtp://user:password@mail.example.com:587).');
  }
  if (!['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname) {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL (e.g. smtp://user:password@mail.example.com:587).');
  }
  // The address only: the sender's display name is each vendor's (its name, or the one it set in the panel).
  if (!from || !/^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]{2,}$/.test(from)) {
    throw new Error('SMTP_FROM must be the address e-mails are sent from, such as receipts@example.com.');
  }
  // Anyone who may sign up could otherwise make this server mail any address from the sandbox, with
  // test cards: sandbox e-mails go to the vendor's own address unless the operator says otherwise.
  const sandboxTo = env.SMTP_SANDBOX_TO || 'vendor';
  if (sandboxTo !== 'vendor' && sandboxTo !== 'customers') {
    throw new Error(
      'SMTP_SANDBOX_TO must be vendor (sandbox e-mails go to the vendor, the default) or customers (to the sandbox customers).',
    );
  }
  return Object.freeze({ url, from, sandboxTo });
}

/** PANEL_SIGNUP: closed unless the operator says otherwise, since an open panel lets strangers make vendors. */
function panelSignup(value: string | undefined): Config['panelSignup'] {
  const mode = value?.trim().toLowerCase() || 'closed';
  if (mode === 'closed' || mode === 'invite' || mode === 'open') return mode;
  throw new Error(
    `PANEL_SIGNUP must be closed (the default: vendors are made with opentill vendor create), invite (sign-up through a link from opentill vendor invite --email) or open (anyone may sign up; new vendors stay in the sandbox until opentill vendor enable-production), not "${value}".`,
  );
}

/** A token short enough to guess would open the metrics to anyone: refused, like a short secret. */
function metricsToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length < 24 || /\s/.test(value))
    throw new Error('METRICS_TOKEN must be at least 24 characters without spaces (e.g. `openssl rand -hex 24`).');
  return value;
}

/** The keys of one environment: the secret and publishable keys together; a live key in the sandbox is refused. */
function stripeKeys(env: NodeJS.ProcessEnv, prefix: string, live: boolean): StripeKeys | undefined {
  const names = ['SECRET_KEY', 'PUBLISHABLE_KEY', 'WEBHOOK_SECRET'].map((n) => `${prefix}${n}`);
  const [secretKey, publishableKey, webhookSecret] = names.map((n) => env[n] || undefined);
  if (!secretKey && !publishableKey && !webhookSecret) return undefined;
  const missing = names.slice(0, 2).filter((n) => !env[n]);
  if (missing.length) throw new Error(`Stripe needs both ${names[0]} and ${names[1]}; missing ${missing.join(', ')}.`);
  if (!/^(sk|rk)_(live|test)_/.test(secretKey!))
    throw new Error(`${names[0]} must be a Stripe secret key (sk_live_… or sk_test_…).`);
  if (!/^pk_(live|test)_/.test(publishableKey!))
    throw new Error(`${names[1]} must be a Stripe publishable key (pk_live_… or pk_test_…).`);
  if (webhookSecret !== undefined && !/^whsec_/.test(webhookSecret))
    throw new Error(`${names[2]} must be a webhook signing secret (whsec_…).`);
  if (!live && /_live_/.test(secretKey! + publishableKey!))
    throw new Error(`${prefix}* must be test-mode keys: the sandbox never moves real money.`);
  return Object.freeze({ secretKey: secretKey!, publishableKey: publishableKey!, webhookSecret });
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${value}".`);
  return n;
}

/** Set by a `serve --processes` primary in the environment of each process it starts. */
export const CLUSTER_WORKER_VARIABLE = 'OPENTILL_CLUSTER_WORKER';

const TRUST_PROXY_HINT =
  'Set TRUST_PROXY to the addresses or CIDR ranges of your proxies, comma-separated (TRUST_PROXY=127.0.0.1,10.0.0.0/8), ' +
  'or leave it unset (or false) when clients connect to opentill directly.';

/**
 * TRUST_PROXY (docs/decisions.md §11): unset or `false` trusts no peer; a list of proxy addresses and
 * CIDR ranges trusts exactly those peers to name the client in X-Forwarded-For. Refused: `true` and
 * ranges that cover every address (any client could choose its own address, and with it its login
 * throttling and tax country), and a count of proxies (it cannot tell a proxy from a client that
 * writes the header itself; Fastify no longer honours one).
 */
function parseTrustProxy(value: string | undefined): false | string {
  const text = (value ?? '').trim();
  if (text === '' || text.toLowerCase() === 'false') return false;
  if (text.toLowerCase() === 'true')
    throw new Error(`TRUST_PROXY=true would believe any client's X-Forwarded-For header. ${TRUST_PROXY_HINT}`);
  if (/^\d+$/.test(text)) {
    throw new Error(
      `TRUST_PROXY=${text} is a number of proxies; a count cannot tell a proxy from a client that writes X-Forwarded-For itself. ${TRUST_PROXY_HINT}`,
    );
  }
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    const bits = prefix !== undefined && /^\d{1,3}$/.test(prefix) ? Number(prefix) : undefined;
    if (
      version === 0 ||
      extra !== undefined ||
      (prefix !== undefined && (bits === undefined || bits > (version === 4 ? 32 : 128)))
    ) {
      throw new Error(`TRUST_PROXY: "${entry}" is not an IP address or CIDR range. ${TRUST_PROXY_HINT}`);
    }
    if (bits === 0)
      throw new Error(
        `TRUST_PROXY: "${entry}" covers every address, so it would believe any client as true does. ${TRUST_PROXY_HINT}`,
      );
  }
  return entries.join(',');
}

/** PASSWORD_HASH_COST: a whole number in the range a stored hash may name (PASSWORD_COSTS). */
function passwordHashCost(value: string | undefined): number {
  const { min, max, standard } = PASSWORD_COSTS;
  const cost = int(value, standard, 'PASSWORD_HASH_COST');
  if (cost < min || cost > max)
    throw new Error(
      `PASSWORD_HASH_COST must be ${min} to ${max} (log2 of scrypt's N; ${standard} by default), not "${value}".`,
    );
  return cost;
}

/** SQLITE_FILE: `:memory:` is SQLite's name for a database kept in memory, not a file name. */
function sqliteFileOf(value: string | undefined, dataDir: string): string {
  if (value === ':memory:') return value;
  return resolve(value || resolve(dataDir, 'opentill.db'));
}

/** RATES_FILE or SALES_TAX_FILE: the file named, else the imported one when it exists, else undefined (the built-in table). */
function tableFileOf(named: string | undefined, imported: string): string | undefined {
  if (named) return resolve(named);
  return existsSync(imported) ? imported : undefined;
}

/** The process's environment, for what passes it on whole (the CLI's run of a command); read here only. */
export const processEnvironment = (): NodeJS.ProcessEnv => process.env;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 3000, 'PORT');
  const dataDir = resolve(env.OPENTILL_DATA_DIR ?? 'data');
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const importedRatesFile = resolve(dataDir, 'exchange-rates.xml');
  const importedSalesTaxFile = resolve(dataDir, 'us-sales-tax.csv');
  const sqliteFile = sqliteFileOf(env.SQLITE_FILE, dataDir);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  // What an earlier version or an operator's umask left readable by others is made private at every start.
  const sqliteFiles =
    env.DATABASE_URL || sqliteFile === ':memory:' ? [] : [sqliteFile, `${sqliteFile}-wal`, `${sqliteFile}-shm`];
  const tightened = [dataDir, resolve(dataDir, 'secret'), importedRatesFile, ...sqliteFiles].flatMap(
    (path) => restrictToOwner(path) ?? [],
  );
  const secret = loadSecret(env, dataDir);
  return Object.freeze({
    host: env.HOST ?? '127.0.0.1',
    port,
    baseUrl,
    sandboxUrl: (env.SANDBOX_URL ?? `${baseUrl}/sandbox`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteFile,
    dataDir,
    secret,
    secretSource: env.OPENTILL_SECRET ? 'environment' : 'file',
    clusterWorker: env[CLUSTER_WORKER_VARIABLE] === '1',
    ratesFile: tableFileOf(env.RATES_FILE, importedRatesFile),
    importedRatesFile,
    ratesHistoryFile: resolve(dataDir, 'exchange-rates-history.xml'),
    salesTaxFile: tableFileOf(env.SALES_TAX_FILE, importedSalesTaxFile),
    importedSalesTaxFile,
    ...sellerOfRecordOf(env),
    platformFee: env.PLATFORM_FEE?.trim() || '0',
    payoutHoldDays: env.PAYOUT_HOLD_DAYS === '0' ? 0 : int(env.PAYOUT_HOLD_DAYS, 14, 'PAYOUT_HOLD_DAYS'),
    trustProxy,
    webhooksAllowPrivate: env.WEBHOOKS_ALLOW_PRIVATE === 'true',
    logLevel: env.LOG_LEVEL ?? 'info',
    rateLimit: Object.freeze({
      perCredentialPerMinute: int(env.RATE_LIMIT_PER_CREDENTIAL, 6000, 'RATE_LIMIT_PER_CREDENTIAL'),
      perAddressPerMinute: int(env.RATE_LIMIT_PER_ADDRESS, 12000, 'RATE_LIMIT_PER_ADDRESS'),
      authFailuresPerMinute: int(env.AUTH_FAILURES_PER_MINUTE, 20, 'AUTH_FAILURES_PER_MINUTE'),
      licenceKeyPerAddress: int(env.LICENCE_KEY_REQUESTS_PER_ADDRESS, 60, 'LICENCE_KEY_REQUESTS_PER_ADDRESS'),
      checkout: Object.freeze({
        sessionsPerAddress: int(env.CHECKOUT_SESSIONS_PER_ADDRESS, 10, 'CHECKOUT_SESSIONS_PER_ADDRESS'),
        sessionsPerProduct: int(env.CHECKOUT_SESSIONS_PER_PRODUCT, 60, 'CHECKOUT_SESSIONS_PER_PRODUCT'),
        quotesPerAddress: int(env.CHECKOUT_QUOTES_PER_ADDRESS, 60, 'CHECKOUT_QUOTES_PER_ADDRESS'),
        quotesPerProduct: int(env.CHECKOUT_QUOTES_PER_PRODUCT, 600, 'CHECKOUT_QUOTES_PER_PRODUCT'),
      }),
    }),
    seedDemo: env.OPENTILL_DEMO !== 'false',
    panelSignup: panelSignup(env.PANEL_SIGNUP),
    passwordHashCost: passwordHashCost(env.PASSWORD_HASH_COST),
    redis: redisSettings(env),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    smtp: smtpSettings(env),
    payments: Object.freeze({
      gatewayTimeoutMs: int(env.GATEWAY_TIMEOUT_SECONDS, 30, 'GATEWAY_TIMEOUT_SECONDS') * 1000,
      reconcileGraceMs: int(env.RECONCILE_AFTER_SECONDS, 60, 'RECONCILE_AFTER_SECONDS') * 1000,
      idempotencyStaleMs: int(env.IDEMPOTENCY_STALE_SECONDS, 120, 'IDEMPOTENCY_STALE_SECONDS') * 1000,
    }),
    billing: Object.freeze({
      runInServer: env.OPENTILL_WORKER !== 'false',
      intervalSeconds: int(env.BILLING_INTERVAL_SECONDS, 10, 'BILLING_INTERVAL_SECONDS'),
      leaseSeconds: int(env.BILLING_LEASE_SECONDS, 120, 'BILLING_LEASE_SECONDS'),
      batchSize: int(env.BILLING_BATCH_SIZE, 500, 'BILLING_BATCH_SIZE'),
    }),
    stripe: Object.freeze({
      production: stripeKeys(env, 'STRIPE_', true),
      sandbox: stripeKeys(env, 'STRIPE_SANDBOX_', false),
      apiUrl: env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL).origin : undefined,
      jsUrl: env.STRIPE_JS_URL ?? 'https://js.stripe.com/v3/',
    }),
    tightenedPermissions: Object.freeze(tightened),
  });
}
