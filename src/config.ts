import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

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
  readonly sqliteFile: string;
  readonly dataDir: string;
  /** Keys the HMAC of API passwords and signs hosted links. */
  readonly secret: string;
  /**
   * The exchange-rate table to load: RATES_FILE, else the one `opentill rates import` wrote
   * (`importedRatesFile`) when it exists, else undefined for the bundled table.
   */
  readonly ratesFile: string | undefined;
  /** Where `opentill rates import` writes the table: `<dataDir>/exchange-rates.xml`. */
  readonly importedRatesFile: string;
  readonly trustProxy: boolean | string;
  readonly logLevel: string;
  readonly rateLimit: { readonly perCredentialPerMinute: number; readonly perAddressPerMinute: number; readonly authFailuresPerMinute: number };
  readonly seedDemo: boolean;
  /** The billing worker: run inside `serve` (OPENTILL_WORKER=false turns it off), how often, and its lease. */
  readonly billing: { readonly runInServer: boolean; readonly intervalSeconds: number; readonly leaseSeconds: number; readonly batchSize: number };
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${value}".`);
  return n;
}

/** The server secret: OPENTILL_SECRET, or one generated once and kept in the data directory. */
function loadSecret(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.OPENTILL_SECRET) {
    if (env.OPENTILL_SECRET.length < 32) throw new Error('OPENTILL_SECRET must have at least 32 characters.');
    return env.OPENTILL_SECRET;
  }
  const file = resolve(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 3000, 'PORT');
  const dataDir = resolve(env.OPENTILL_DATA_DIR ?? 'data');
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const trust = env.TRUST_PROXY;
  const importedRatesFile = resolve(dataDir, 'exchange-rates.xml');
  return Object.freeze({
    host: env.HOST ?? '127.0.0.1',
    port,
    baseUrl,
    sandboxUrl: (env.SANDBOX_URL ?? `${baseUrl}/sandbox`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteFile: resolve(env.SQLITE_FILE ?? resolve(dataDir, 'opentill.db')),
    dataDir,
    secret: loadSecret(env, dataDir),
    ratesFile: env.RATES_FILE ? resolve(env.RATES_FILE) : existsSync(importedRatesFile) ? importedRatesFile : undefined,
    importedRatesFile,
    trustProxy: trust === undefined || trust === '' || trust === 'false' ? false : trust === 'true' ? true : trust,
    logLevel: env.LOG_LEVEL ?? 'info',
    rateLimit: Object.freeze({
      perCredentialPerMinute: int(env.RATE_LIMIT_PER_CREDENTIAL, 6000, 'RATE_LIMIT_PER_CREDENTIAL'),
      perAddressPerMinute: int(env.RATE_LIMIT_PER_ADDRESS, 12000, 'RATE_LIMIT_PER_ADDRESS'),
      authFailuresPerMinute: int(env.AUTH_FAILURES_PER_MINUTE, 20, 'AUTH_FAILURES_PER_MINUTE'),
    }),
    seedDemo: env.OPENTILL_DEMO !== 'false',
    billing: Object.freeze({
      runInServer: env.OPENTILL_WORKER !== 'false',
      intervalSeconds: int(env.BILLING_INTERVAL_SECONDS, 10, 'BILLING_INTERVAL_SECONDS'),
      leaseSeconds: int(env.BILLING_LEASE_SECONDS, 120, 'BILLING_LEASE_SECONDS'),
      batchSize: int(env.BILLING_BATCH_SIZE, 500, 'BILLING_BATCH_SIZE'),
    }),
  });
}
