import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../config.ts';
import type { Environment } from '../../domain/model.ts';
import { operatorSeller, type IdentityField } from '../../domain/production-access.ts';
import { io, print, run } from '../output.ts';

/** One finding: `ok`, `note` (works, but worth knowing), or `fix` (opentill will not run right until it is fixed). */
interface Check {
  name: string;
  status: 'ok' | 'note' | 'fix';
  detail: string;
}

/**
 * `opentill doctor`: checks what a start needs, in order, and says what to fix. Unlike every other
 * command it opens the database without migrating it: it reports the schema as it finds it.
 */
export function registerDoctorCommand(program: Command) {
  program
    .command('doctor')
    .description('check the configuration, secret, store, schema and payment processor keys, and say what to fix')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const checks = await diagnose();
        const failed = checks.some((c) => c.status === 'fix');
        print(!!opts.json, { healthy: !failed, checks }, () =>
          [
            ...checks.map((c) => `${c.status.toUpperCase().padEnd(4)}  ${c.name}: ${c.detail}`),
            failed ? 'Fix the lines marked FIX, then run `opentill doctor` again.' : 'Nothing to fix.',
          ].join('\n'),
        );
        if (failed) io().exitCode = 1;
      }),
    );
}

async function diagnose(): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config;
  try {
    config = loadConfig(io().env);
  } catch (err) {
    // Every later check needs the configuration: a bad setting is the one thing to report.
    return [{ name: 'configuration', status: 'fix', detail: (err as Error).message }];
  }
  checks.push({
    name: 'configuration',
    status: 'ok',
    detail: `listening on ${config.host}:${config.port}, public at ${config.baseUrl}`,
  });
  checks.push({
    name: 'secret',
    status: 'ok',
    detail:
      config.secretSource === 'environment'
        ? 'OPENTILL_SECRET is set'
        : `kept in ${config.dataDir}/secret, readable by this account only`,
  });
  if (config.tightenedPermissions.length)
    checks.push({
      name: 'permissions',
      status: 'note',
      detail: `group and other access was removed from ${config.tightenedPermissions.join(', ')}`,
    });

  const store = config.databaseUrl ? 'PostgreSQL' : `SQLite at ${config.sqliteFile}`;
  if (!config.databaseUrl && (config.sqliteFile === ':memory:' || !existsSync(config.sqliteFile))) {
    checks.push({
      name: 'store',
      status: 'note',
      detail:
        config.sqliteFile === ':memory:'
          ? 'SQLite in memory: nothing is kept when the process ends'
          : `no database yet at ${config.sqliteFile}; \`opentill serve\` creates it`,
    });
    // Stripe's keys are checked with or without a database; production without them takes no payments.
    for (const environment of ['production', 'sandbox'] as const)
      if (config.stripe[environment]) checks.push(await stripeCheck(environment, config));
    if (!config.stripe.production) checks.push(NO_PROCESSOR);
  } else {
    let services: Awaited<ReturnType<typeof open>> | undefined;
    try {
      services = await open(config);
      const pending = await services.maintenance.pendingMigrations();
      checks.push({ name: 'store', status: 'ok', detail: `${store} answers` });
      checks.push(
        pending.length
          ? {
              name: 'schema',
              status: 'fix',
              detail: `${pending.length} migration(s) not run (${pending.join(', ')}): run \`opentill migrate\` (or start opentill, which migrates)`,
            }
          : { name: 'schema', status: 'ok', detail: 'every migration of this version has run' },
      );
      for (const environment of ['production', 'sandbox'] as const)
        checks.push(await payments(services, environment, config));
      if (!pending.length) checks.push(...(await sellerIdentities(services)));
      checks.push(await emails(config));
    } catch (err) {
      // What the driver said (an outage reaches here with it as the cause), not the message meant for API clients.
      const said = ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
      checks.push({
        name: 'store',
        status: 'fix',
        detail: `${store} does not answer (${said}); check DATABASE_URL or SQLITE_FILE`,
      });
    } finally {
      await services?.close().catch(() => undefined);
    }
  }
  return checks;
}

/** Customer e-mails: off without SMTP; with it, the server is asked to take a login (nothing is sent). */
async function emails(config: Config): Promise<Check> {
  const name = 'customer e-mails';
  if (!config.smtp)
    return { name, status: 'note', detail: 'off: SMTP_URL is not set, so no receipt or notice is sent to customers' };
  const { smtpHost, smtpProbe } = await import('../../mail/smtp-sender.ts');
  const problem = await smtpProbe(config.smtp.url);
  const where = smtpHost(config.smtp.url);
  return problem
    ? {
        name,
        status: 'fix',
        detail: `${where} did not accept a connection and login (${problem}); e-mails wait in the outbox meanwhile`,
      }
    : { name, status: 'ok', detail: `sent from ${config.smtp.from} through ${where}` };
}

async function open(config: Config) {
  const { createServices } = await import('../../services.ts');
  return createServices(config);
}

/** Production without Stripe's keys, before the database exists (after, the running wiring says it). */
const NO_PROCESSOR: Check = {
  name: 'production payments',
  status: 'note',
  detail:
    'no payment processor is configured for production: set STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY, then run `opentill stripe setup` (README, "Taking real payments")',
};

/** Which processor takes an environment's payments: none (a note), opentill's virtual cards, or Stripe (stripeCheck). */
async function payments(
  services: Awaited<ReturnType<typeof open>>,
  environment: Environment,
  config: Config,
): Promise<Check> {
  const { processor, detail } = services.payments.describe(environment);
  const name = `${environment} payments`;
  if (processor === null) return { name, status: 'note', detail };
  if (!config.stripe[environment]) return { name, status: 'ok', detail };
  return stripeCheck(environment, config);
}

/**
 * Stripe's keys of an environment: Stripe is asked which account they open (one try, 10 s). Unreachable
 * or refused is a fix saying what to do, as is a missing webhook signing secret; each said once, in one line.
 */
async function stripeCheck(environment: Environment, config: Config): Promise<Check> {
  const name = `${environment} payments`;
  const keys = config.stripe[environment]!;
  const prefix = environment === 'sandbox' ? 'STRIPE_SANDBOX_' : 'STRIPE_';
  const setup = `\`opentill stripe setup${environment === 'sandbox' ? ' --sandbox' : ''}\``;
  const { probeStripe } = await import('../../gateways/stripe-setup.ts');
  const probe = await probeStripe({
    keys,
    apiUrl: config.stripe.apiUrl,
    secretKeyName: `${prefix}SECRET_KEY`,
    timeoutMs: 10_000,
  });
  if ('problem' in probe)
    return {
      name,
      status: 'fix',
      detail: keys.webhookSecret
        ? probe.problem
        : `${probe.problem}; then run ${setup}, which also prints the webhook signing secret to set as ${prefix}WEBHOOK_SECRET`,
    };
  const account = `Stripe account ${probe.account} (${probe.livemode ? 'live' : 'test'} mode) answers`;
  return keys.webhookSecret
    ? { name, status: 'ok', detail: `${account}; cards are taken by Stripe's Payment Element on the checkout page` }
    : { name, status: 'fix', detail: `${account}; no webhook signing secret (${prefix}WEBHOOK_SECRET): run ${setup}` };
}

/** Vendors listed one by one, at most this many; `opentill vendor list` shows every one. */
const LISTED = 20;

/**
 * Whose seller identity keeps production checkout closed (docs/decisions.md §24): the operator's when
 * it sells for every vendor (a fix: nobody can sell), else each vendor's that reaches production.
 */
async function sellerIdentities(services: Awaited<ReturnType<typeof open>>): Promise<Check[]> {
  const name = 'seller identity';
  const operator = operatorSeller(services.config.sellerOfRecord);
  if (operator) {
    const { missing } = operator;
    if (missing.length === 0)
      return [{ name, status: 'ok', detail: 'the operator sells for every vendor, as SELLER_NAME' }];
    const variables = missing.map((field) => OPERATOR_VARIABLES[field]).join(', ');
    return [
      {
        name,
        status: 'fix',
        detail: `the operator sells for every vendor (SELLER_OF_RECORD=operator) but its ${missing.join(', ')} is not set, so no production checkout opens: set ${variables}`,
      },
    ];
  }
  const statuses = await services.catalog.vendorStatuses();
  const incomplete = statuses.filter((s) => s.productionEnabled && s.seller.missing.length > 0);
  if (incomplete.length === 0)
    return statuses.length
      ? [
          {
            name,
            status: 'ok',
            detail: 'every vendor that reaches production has its legal name, address, country and tax ID',
          },
        ]
      : [];
  const checks: Check[] = incomplete.slice(0, LISTED).map(({ vendor, seller }) => ({
    name: `${name} of ${vendor.name} (${vendor.id})`,
    status: 'note',
    detail: `its production checkout stays closed until its ${seller.missing.join(', ')} ${seller.missing.length > 1 ? 'are' : 'is'} set: the panel's Settings, or opentill vendor settings --vendor ${vendor.id} ${seller.missing.map((field) => VENDOR_FLAGS[field]).join(' ')}`,
  }));
  if (incomplete.length > LISTED)
    checks.push({
      name,
      status: 'note',
      detail: `${incomplete.length - LISTED} more vendors lack a part of it: opentill vendor list`,
    });
  return checks;
}

const OPERATOR_VARIABLES: Record<IdentityField, string> = {
  'legal name': 'SELLER_NAME',
  address: 'SELLER_ADDRESS',
  country: 'SELLER_COUNTRY',
  'tax ID': 'SELLER_TAX_ID',
};
const VENDOR_FLAGS: Record<IdentityField, string> = {
  'legal name': '--seller-name ...',
  address: '--address "street|city"',
  country: '--country XX',
  'tax ID': '--tax-id ...',
};
