import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { BUNDLED_RATES_FILE, loadExchangeRates, writeExchangeRatesFile } from '../domain/exchange-rates.ts';
import type { Coupon, Environment } from '../domain/model.ts';
import { formatDecimal, formatMinor } from '../domain/money.ts';
import { createServices, type Services } from '../services.ts';
import { fail, print, run } from './output.ts';
import { eventful, startBillingWorker } from '../worker.ts';

/** `opentill`: serve the API, migrate, and manage vendors, products and sandbox purchases. */
const program = new Command('opentill').description('opentill: self-hostable payments and subscriptions').showHelpAfterError();

async function withServices<T>(fn: (services: Services, applied: string[]) => Promise<T>): Promise<T> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    fail((err as Error).message);
  }
  const services = createServices(config);
  try {
    const applied = await services.database.migrate();
    return await fn(services, applied);
  } finally {
    await services.close();
  }
}

const environment = (value: string): Environment => {
  if (value !== 'sandbox' && value !== 'production') throw new InvalidArgumentError('must be sandbox or production');
  return value;
};

const price = (value: string, previous: { currency: string; value: string }[] = []) => {
  const match = /^([A-Za-z]{3})[:=](\d+(?:\.\d+)?)$/.exec(value);
  if (!match) throw new InvalidArgumentError('write prices as CURRENCY:AMOUNT, e.g. USD:19.99');
  return [...previous, { currency: match[1]!, value: match[2]! }];
};

program
  .command('serve')
  .description('start the HTTP server (migrates first; seeds a demo vendor on the very first start)')
  .action(async () => {
    try {
      // Loaded only here: the HTTP stack is most of a cold start, and no other command needs it.
      const { startServer } = await import('../server.ts');
      await startServer(loadConfig());
    } catch (err) {
      fail((err as Error).message);
    }
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services, applied) => {
        // withServices has just migrated: report what that run applied.
        print(!!opts.json, { applied, dialect: services.database.dialect }, () =>
          [
            ...(applied.length ? [`Applied ${applied.length} migration(s): ${applied.join(', ')}`] : ['No migration to apply.']),
            `Schema is up to date on ${services.database.dialect}.`,
          ].join('\n'),
        );
      }),
    ),
  );

const vendor = program.command('vendor').description('manage vendors');
vendor
  .command('create')
  .description('create a vendor and print its production and sandbox API credentials (shown once)')
  .requiredOption('--name <name>', 'vendor name')
  .requiredOption('--email <email>', 'contact e-mail')
  .option('--json', 'print JSON')
  .action(async (opts: { name: string; email: string; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const created = await services.catalog.createVendor(opts);
        const production = await services.credentials.issue({ vendorId: created.id, environment: 'production' });
        const sandbox = await services.credentials.issue({ vendorId: created.id, environment: 'sandbox' });
        print(!!opts.json, { vendor: created, credentials: { production: production.authorization, sandbox: sandbox.authorization } }, () =>
          [
            `Vendor ${created.name} created: ${created.id}`,
            'API credentials (Authorization header values; shown only now, keep them secret):',
            `  production (${services.urls.base('production')}/v1): ${production.authorization}`,
            `  sandbox    (${services.urls.base('sandbox')}/v1): ${sandbox.authorization}`,
          ].join('\n'),
        );
      }),
    ),
  );

const credential = program.command('credential').description('issue, list and revoke API credentials (rotate: create a new one, switch, revoke the old)');
credential
  .command('create')
  .description('issue a new API credential for one environment (shown once)')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--environment <env>', 'sandbox or production', environment)
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; environment: Environment; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const issued = await services.credentials.issue({ vendorId: opts.vendor, environment: opts.environment });
        print(!!opts.json, { id: issued.id, environment: issued.environment, login: issued.login, authorization: issued.authorization }, () =>
          [`New ${issued.environment} credential ${issued.id} (shown only now, keep it secret):`, `  ${issued.authorization}`].join('\n'),
        );
      }),
    ),
  );
credential
  .command('list')
  .description("list a vendor's credentials (never their passwords)")
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const all = await services.credentials.list(opts.vendor);
        print(!!opts.json, all, () =>
          all.length === 0
            ? 'No credentials.'
            : all.map((c) => `${c.id}  ${c.environment.padEnd(10)}  ${c.login}  created ${c.createdAt}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}`).join('\n'),
        );
      }),
    ),
  );
credential
  .command('revoke')
  .description('revoke a credential at once: requests with it get 401')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--credential <id-or-login>', 'the credential id (TC-CR_...) or its login')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; credential: string; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const found = (await services.credentials.list(opts.vendor)).find((c) => c.id === opts.credential || c.login === opts.credential);
        if (!found) fail(`Vendor ${opts.vendor} has no credential ${opts.credential}.`, !!opts.json);
        if (found.revokedAt) fail(`Credential ${found.id} was already revoked at ${found.revokedAt}.`, !!opts.json);
        await services.credentials.revoke({ vendorId: opts.vendor, environment: found.environment }, found.id);
        print(!!opts.json, { id: found.id, login: found.login, revoked: true }, () => `Credential ${found.id} (${found.login}) is revoked.`);
      }),
    ),
  );

vendor
  .command('settings')
  .description("change a vendor's settings")
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .option('--allow-conversion <yes|no>', 'customers may pay in their own currency converted from USD (yes), or only in the listed currencies, else USD (no)', (v) => {
    if (!['yes', 'no', 'true', 'false'].includes(v)) throw new InvalidArgumentError('must be yes or no');
    return v === 'yes' || v === 'true';
  })
  .option('--admin-frame-origins <origins>', 'origins whose pages may frame the admin tool, comma-separated (e.g. https://admin.acme.test), or "none"')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; allowConversion?: boolean; adminFrameOrigins?: string; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (opts.allowConversion === undefined && opts.adminFrameOrigins === undefined) fail('Give a setting to change: --allow-conversion or --admin-frame-origins.', !!opts.json);
        const origins = opts.adminFrameOrigins === undefined ? undefined : opts.adminFrameOrigins === 'none' ? [] : opts.adminFrameOrigins.split(/[\s,]+/).filter(Boolean);
        const updated = await services.catalog.updateVendorSettings(opts.vendor, { allowConversion: opts.allowConversion, adminFrameOrigins: origins });
        print(!!opts.json, updated, () =>
          [
            `Vendor ${updated.id}: conversion from USD is ${updated.allowConversion ? 'allowed' : 'off; customers pay in listed currencies or USD'}.`,
            `The admin tool may be framed by: ${updated.adminFrameOrigins.length ? updated.adminFrameOrigins.join(', ') : 'no other site'}.`,
          ].join('\n'),
        );
      }),
    ),
  );

const product = program.command('product').description('manage products');
product
  .command('create')
  .description('create a product')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--name <name>', 'product name')
  .requiredOption('--type <type>', 'ONETIME, SUBSCRIPTION or VAULTED')
  .requiredOption('--price <CUR:AMOUNT>', 'net price, repeatable; USD is required', price)
  .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
  .option('--frequency <frequency>', 'DAILY, WEEKLY, MONTHLY, HALF_YEARLY or YEARLY (subscriptions)')
  .option('--trial-days <days>', 'trial length in days (subscriptions)', (v) => Number(v))
  .option('--licences', 'issue a licence key with every purchase')
  .option('--description <text>', 'description')
  .option('--json', 'print JSON')
  .action(async (opts) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const created = await services.catalog.createProduct(
          { vendorId: opts.vendor, environment: opts.env },
          { name: opts.name, type: opts.type, prices: opts.price, chargeFrequency: opts.frequency, trialDays: opts.trialDays, issuesLicences: !!opts.licences, description: opts.description },
        );
        print(!!opts.json, created, () =>
          [
            `Product ${created.name} created in ${created.environment}: ${created.id}`,
            `  ${created.type}${created.type === 'SUBSCRIPTION' ? ` ${created.chargeFrequency}` : ''}${created.trialDays ? `, ${created.trialDays}-day trial` : ''}${created.issuesLicences ? ', issues licences' : ''}`,
            `  prices: ${Object.entries(created.prices).map(([c, m]) => `${formatMinor(m, c)} ${c}`).join(', ')}`,
          ].join('\n'),
        );
      }),
    ),
  );

const coupon = program.command('coupon').description("manage a product's discount codes");
const couponLine = (c: Coupon) =>
  `${c.id}  ${c.code}  ${c.percentOff !== null ? `${c.percentOff}% off` : `${Object.entries(c.amountsOff).map(([cur, m]) => `${formatMinor(m, cur)} ${cur}`).join(', ')} off`}  product ${c.productId}${c.expiresAt ? `  expires ${c.expiresAt}` : ''}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}`;
coupon
  .command('create')
  .description('create a coupon: a percentage off (--percent) or an amount off (--amount, USD required)')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--product <id>', 'product id (TC-PR_...)')
  .requiredOption('--code <code>', 'what customers type, e.g. LAUNCH25 (case does not matter)')
  .option('--percent <percent>', 'percent off the net price, e.g. 25 or 12.5')
  .option('--amount <CUR:AMOUNT>', 'amount off the net price, repeatable; USD is required', price)
  .option('--expires <date>', 'last moment it can be used, e.g. 2030-12-31T23:59:59Z')
  .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; product: string; code: string; percent?: string; amount?: { currency: string; value: string }[]; expires?: string; env: Environment; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const created = await services.coupons.create(
          { vendorId: opts.vendor, environment: opts.env },
          { productId: opts.product, code: opts.code, percentOff: opts.percent, amountsOff: opts.amount, expiresAt: opts.expires },
        );
        print(!!opts.json, created, () => `Coupon created in ${created.environment}: ${couponLine(created)}`);
      }),
    ),
  );
coupon
  .command('list')
  .description("list a vendor's coupons")
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; env: Environment; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const all = await services.coupons.list({ vendorId: opts.vendor, environment: opts.env });
        print(!!opts.json, all, () => (all.length ? all.map(couponLine).join('\n') : 'No coupons.'));
      }),
    ),
  );
coupon
  .command('revoke')
  .description('stop a coupon from being used')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--coupon <id>', 'coupon id (TC-CO_...)')
  .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; coupon: string; env: Environment; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        await services.coupons.revoke({ vendorId: opts.vendor, environment: opts.env }, opts.coupon);
        print(!!opts.json, { id: opts.coupon, revoked: true }, () => `Coupon ${opts.coupon} is revoked.`);
      }),
    ),
  );

const sandbox = program.command('sandbox').description('sandbox tools');
sandbox
  .command('purchase')
  .description('buy a sandbox product with a test card, through the same code as the checkout')
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .requiredOption('--product <id>', 'product or customized product id')
  .requiredOption('--email <email>', "customer's e-mail")
  .option('--country <code>', 'customer country (ISO 3166-1 alpha-2)', 'US')
  .option('--region <code>', 'US state or Canadian province')
  .option('--currency <code>', 'currency to pay in (default: the country\'s)')
  .option('--coupon <code>', 'a coupon code of the product')
  .option('--card <number>', 'test card number', '4242424242424242')
  .option('--expiry <MM/YY>', 'card expiry', '12/34')
  .option('--json', 'print JSON')
  .action(async (opts) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        const expiry = /^(\d{1,2})\/(\d{2,4})$/.exec(opts.expiry);
        if (!expiry) fail('--expiry must look like 12/34.', !!opts.json);
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const result = await services.purchases.purchase(
          { vendorId: opts.vendor, environment: 'sandbox' },
          { productId: opts.product, email: opts.email, country: opts.country, region: opts.region, currency: opts.currency, coupon: opts.coupon, card: { number: opts.card, expMonth: Number(expiry[1]), expYear: Number(expiry[2]) } },
        );
        if (result.status === 'DECLINED') fail(`Payment declined (${result.code}): ${result.message}`, !!opts.json);
        const { transaction: t, quote: q, licence } = result;
        print(!!opts.json, { transaction: t, licence }, () =>
          [
            `Paid: ${t.id} (${t.status})`,
            `  ${t.productName} for ${t.email} in ${t.country}: ${formatMinor(q.netMinor, q.currency)} + ${q.taxName || 'tax'} ${formatMinor(q.taxMinor, q.currency)} = ${formatMinor(q.totalMinor, q.currency)} ${q.currency}`,
            ...(licence ? [`  licence: ${licence}`] : []),
          ].join('\n'),
        );
      }),
    ),
  );

sandbox
  .command('clock')
  .description("read a vendor's sandbox clock, or move it forward and bill what became due")
  .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
  .option('--days <n>', 'move forward by this many days', (v) => positiveNumber(v))
  .option('--seconds <n>', 'move forward by this many seconds', (v) => positiveNumber(v))
  .option('--to <time>', 'move forward to this ISO-8601 instant')
  .option('--json', 'print JSON')
  .action(async (opts: { vendor: string; days?: number; seconds?: number; to?: string; json?: boolean }) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        if (!(await services.store.vendors.find(opts.vendor))) fail(`There is no vendor ${opts.vendor}.`, !!opts.json);
        const scope = { vendorId: opts.vendor, environment: 'sandbox' as const };
        const by = (opts.days ?? 0) * 86400 + (opts.seconds ?? 0);
        if (!by && !opts.to) {
          const reading = await services.sandboxClock.read(scope);
          return print(!!opts.json, reading, () => `Sandbox time of ${opts.vendor}: ${reading.now} (${Math.floor(reading.offsetMs / 1000)} s ahead of real time)`);
        }
        const moved = await services.sandboxClock.advance(scope, opts.to ? { to: opts.to } : { seconds: Math.round(by) });
        const b = moved.billing;
        print(!!opts.json, moved, () =>
          [
            `Sandbox time of ${opts.vendor} is now ${moved.now}.`,
            `Billing: ${b.renewed} renewed, ${b.declined} declined, ${b.ended} ended, ${b.failed} cancelled after failed retries, ${b.expiredOffers} offers expired.`,
            ...b.errors.map((e) => `  held: ${e}`),
          ].join('\n'),
        );
      }),
    ),
  );

program
  .command('worker')
  .description('run the billing worker (renewals, trials, dunning, period ends, offer expiry); `serve` runs one too unless OPENTILL_WORKER=false')
  .option('--once', 'do everything due now, print what was done, and exit')
  .option('--json', 'print JSON')
  .action(async (opts: { once?: boolean; json?: boolean }) =>
    run(!!opts.json, async () => {
      if (opts.once) {
        return withServices(async (services) => {
          await services.sandboxClock.refresh();
          const b = await services.billing.runDue();
          print(!!opts.json, b, () => `Billing: ${b.renewed} renewed, ${b.declined} declined, ${b.ended} ended, ${b.failed} cancelled after failed retries, ${b.unknown} unknown, ${b.expiredOffers} offers expired, ${b.errors.length} held.`);
        });
      }
      const config = configOrFail(!!opts.json);
      const services = createServices(config);
      await services.database.migrate();
      const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
      const worker = startBillingWorker(services, {
        intervalMs: config.billing.intervalSeconds * 1000,
        onReport: (report) => eventful(report) && log(JSON.stringify({ billing: report })),
        onError: (err) => log(`billing run failed: ${(err as Error).stack ?? err}`),
      });
      log(`billing worker running every ${config.billing.intervalSeconds} s; SIGTERM or Ctrl-C stops it after the current batch`);
      await new Promise<void>((resolveStop) => {
        const stop = () => resolveStop();
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
      await worker.stop();
      await services.close();
    }),
  );

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

function configOrFail(json: boolean) {
  try {
    return loadConfig();
  } catch (err) {
    fail((err as Error).message, json);
  }
}

const rates = program.command('rates').description('the exchange-rate table that converts USD prices (ECB reference rates: units per 1 EUR)');
rates
  .command('import <file>')
  .description('validate an ECB eurofxref XML or a currency,rate CSV and make it the table in use from the next server start')
  .option('--json', 'print JSON')
  .action(async (file: string, opts: { json?: boolean }) =>
    run(!!opts.json, async () => {
      const config = configOrFail(!!opts.json);
      // Validated in full before anything is written: a bad file leaves the current table as it was.
      const table = loadExchangeRates(resolve(file));
      writeExchangeRatesFile(config.importedRatesFile, table);
      const overriddenBy = config.ratesFile && config.ratesFile !== config.importedRatesFile ? config.ratesFile : null;
      print(!!opts.json, { file: config.importedRatesFile, date: table.date, currencies: table.perEuro.size, restartRequired: true, overriddenBy }, () =>
        [
          `Imported ${table.perEuro.size} currencies (units per 1 EUR) dated ${table.date} into ${config.importedRatesFile}.`,
          'A running server keeps its current table: restart it to use these rates.',
          ...(overriddenBy ? [`Note: RATES_FILE (${overriddenBy}) takes precedence; unset it for the server to use these rates.`] : []),
        ].join('\n'),
      );
    }),
  );
rates
  .command('show')
  .description('print the exchange-rate table a server starting now would use, and where it comes from')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) =>
    run(!!opts.json, async () => {
      const config = configOrFail(!!opts.json);
      const file = config.ratesFile ?? BUNDLED_RATES_FILE;
      const source = config.ratesFile === undefined ? 'bundled' : config.ratesFile === config.importedRatesFile ? 'imported' : 'RATES_FILE';
      const table = loadExchangeRates(file);
      const perEuro = Object.fromEntries([...table.perEuro].map(([currency, rate]) => [currency, formatDecimal(rate)]));
      const origin = { bundled: 'the table bundled with opentill', imported: 'imported with `opentill rates import`', RATES_FILE: 'set by RATES_FILE' }[source];
      print(!!opts.json, { source, file, date: table.date, currencies: table.perEuro.size, perEuro }, () =>
        [
          `Exchange rates dated ${table.date}: ${table.perEuro.size} currencies, units per 1 EUR.`,
          `Source: ${file} (${origin})`,
          ...Object.entries(perEuro).map(([currency, rate]) => `  ${currency}  ${rate}`),
        ].join('\n'),
      );
    }),
  );

await program.parseAsync(process.argv);
