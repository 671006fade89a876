import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cli as runCli, cliProcess, failedWith, parseJson, succeeded, type CliResult } from '../helpers/cli.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

/**
 * The `opentill` command, each test with a data directory (and so an SQLite store) of its own: run
 * through the binary's entry in this process, and where the exit itself is the point (a failure's
 * code and its one line on stderr) as a user runs it, `node bin/opentill.js ...` in a child process.
 */
const SECRET = 'cli-test-secret-0123456789-0123456789-ab'; // 40 characters
const cli = (args: string[], env: Record<string, string>) => runCli(args, { OPENTILL_SECRET: SECRET, ...env });

/** A fresh data directory per test; `run` calls the CLI with it. */
function sandboxDir() {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-cli-'));
  return {
    dir,
    run: (...args: string[]) => cli(args, { OPENTILL_DATA_DIR: dir }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function createVendor(run: (...args: string[]) => Promise<CliResult>, extra: string[] = []) {
  const result = await run('vendor', 'create', '--name', 'Acme', '--email', 'owner@acme.test', '--json', ...extra);
  succeeded(result);
  return parseJson(result) as { vendor: { id: string }; credentials: { production: string; sandbox: string } };
}

// Each test has its own data directory (or database): they run side by side, as much of their time is waiting on a store.
describe('opentill CLI', { concurrency: 3 }, () => {
  test('vendor create --json prints the vendor id and both credentials', async () => {
    const d = sandboxDir();
    try {
      const result = await d.run('vendor', 'create', '--name', 'X', '--email', 'x@y.test', '--json');
      succeeded(result);
      const out = parseJson(result);
      assert.match(out.vendor.id, /^TC-VE_/);
      assert.equal(out.vendor.name, 'X');
      assert.equal(out.vendor.email, 'x@y.test');
      assert.match(out.credentials.production, /^live_[^:]+:.{22,}$/);
      assert.match(out.credentials.sandbox, /^test_[^:]+:.{22,}$/);
      assert.notEqual(out.credentials.production, out.credentials.sandbox);
    } finally {
      d.remove();
    }
  });

  test('vendor create prints readable lines without --json', async () => {
    const d = sandboxDir();
    try {
      const result = await d.run('vendor', 'create', '--name', 'Readable Ltd', '--email', 'owner@readable.test');
      succeeded(result);
      assert.throws(() => JSON.parse(result.stdout));
      assert.match(result.stdout, /^Vendor Readable Ltd created: TC-VE_\S+$/m);
      assert.match(result.stdout, /production \(.*\/v1\): live_\S+:\S+/);
      assert.match(result.stdout, /sandbox +\(.*\/sandbox\/v1\): test_\S+:\S+/);
    } finally {
      d.remove();
    }
  });

  test('vendor create with a bad e-mail exits non-zero with a reason on stderr', async () => {
    const d = sandboxDir();
    try {
      const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: d.dir };
      failedWith(
        await cliProcess(['vendor', 'create', '--name', 'X', '--email', 'not-an-email'], env),
        /^opentill: .*e-mail/m,
      );
      failedWith(await d.run('vendor', 'create', '--name', 'X', '--email', 'not-an-email'), /^opentill: .*e-mail/m);
      const json = await d.run('vendor', 'create', '--name', 'X', '--email', 'not-an-email', '--json');
      failedWith(json, /e-mail/);
      assert.equal(parseJson(json).error, 'FAILED');
      assert.match(parseJson(json).message, /e-mail/);
    } finally {
      d.remove();
    }
  });

  test('credential create, list and revoke: a rotation from the command line', async () => {
    const d = sandboxDir();
    try {
      const { vendor, credentials } = await createVendor(d.run);
      const created = await d.run('credential', 'create', '--vendor', vendor.id, '--environment', 'sandbox', '--json');
      succeeded(created);
      const fresh = parseJson(created);
      assert.match(fresh.id, /^TC-CR_/);
      assert.match(fresh.authorization, /^test_[^:]+:.{22,}$/);
      assert.notEqual(fresh.authorization, credentials.sandbox);

      const oldLogin = credentials.sandbox.split(':')[0]!;
      const revoked = await d.run('credential', 'revoke', '--vendor', vendor.id, '--credential', oldLogin);
      succeeded(revoked);
      assert.match(revoked.stdout, new RegExp(`\\(${oldLogin}\\) is revoked`));

      const listed = await d.run('credential', 'list', '--vendor', vendor.id, '--json');
      succeeded(listed);
      const all = parseJson(listed) as { id: string; login: string; environment: string; revokedAt: string | null }[];
      assert.equal(all.length, 3);
      assert.deepEqual(
        all.map((c) => [c.login, c.environment, c.revokedAt !== null]).sort(),
        [
          [credentials.production.split(':')[0], 'production', false],
          [fresh.login, 'sandbox', false],
          [oldLogin, 'sandbox', true],
        ].sort(),
      );
      assert.doesNotMatch(listed.stdout, /secret|hash/i, 'no password material is listed');
      assert.equal(listed.stdout.includes(credentials.sandbox.split(':')[1]!), false);

      const text = await d.run('credential', 'list', '--vendor', vendor.id);
      assert.match(text.stdout, new RegExp(`${oldLogin} .*revoked`));

      failedWith(
        await d.run('credential', 'revoke', '--vendor', vendor.id, '--credential', oldLogin),
        /already revoked/,
      );
      failedWith(
        await d.run('credential', 'revoke', '--vendor', vendor.id, '--credential', 'test_nobody'),
        /no credential test_nobody/,
      );
      failedWith(
        await d.run('credential', 'create', '--vendor', 'TC-VE_nobody', '--environment', 'sandbox'),
        /no vendor TC-VE_nobody/,
      );
      failedWith(
        await d.run('credential', 'create', '--vendor', vendor.id, '--environment', 'staging'),
        /sandbox or production/,
      );
    } finally {
      d.remove();
    }
  });

  test('product create with USD and EUR prices (JSON and text)', async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const json = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:19.99',
        '--price',
        'EUR:18',
        '--licences',
        '--json',
      );
      succeeded(json);
      const product = parseJson(json);
      assert.match(product.id, /^TC-PR_/);
      assert.equal(product.vendorId, vendor.id);
      assert.equal(product.environment, 'sandbox');
      assert.equal(product.type, 'ONETIME');
      assert.equal(product.issuesLicences, true);
      assert.deepEqual(product.prices, { USD: 1999, EUR: 1800 });

      const text = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Team',
        '--type',
        'SUBSCRIPTION',
        '--frequency',
        'YEARLY',
        '--trial-days',
        '14',
        '--price',
        'USD:19.99',
        '--price',
        'EUR:18',
      );
      succeeded(text);
      assert.match(text.stdout, /^Product Team created in sandbox: TC-PR_\S+$/m);
      assert.match(text.stdout, /SUBSCRIPTION YEARLY, 14-day trial/);
      assert.match(text.stdout, /prices: 19\.99 USD, 18\.00 EUR/);
    } finally {
      d.remove();
    }
  });

  test('product create refuses a missing USD price, a malformed --price, an unknown vendor and a bad type', async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const base = ['product', 'create', '--vendor', vendor.id, '--name', 'Pro', '--type', 'ONETIME'];
      failedWith(await d.run(...base, '--price', 'EUR:18'), /USD/);
      failedWith(await d.run(...base, '--price', 'USD19.99'), /CURRENCY:AMOUNT/);
      failedWith(await d.run(...base, '--price', 'USD:abc'), /CURRENCY:AMOUNT/);
      failedWith(await d.run(...base, '--price', 'USD:19.999'), /decimals/);
      failedWith(
        await d.run(
          'product',
          'create',
          '--vendor',
          'TC-VE_UNKNOWN',
          '--name',
          'Pro',
          '--type',
          'ONETIME',
          '--price',
          'USD:10',
        ),
        /no vendor TC-VE_UNKNOWN/,
      );
      failedWith(
        await d.run(
          'product',
          'create',
          '--vendor',
          vendor.id,
          '--name',
          'Pro',
          '--type',
          'LIFETIME',
          '--price',
          'USD:10',
        ),
        /ONETIME, SUBSCRIPTION or VAULTED/,
      );
    } finally {
      d.remove();
    }
  });

  test('sandbox purchase with the success card pays; with the decline card it fails', async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const created = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:19.99',
        '--price',
        'EUR:18',
        '--licences',
        '--json',
      );
      succeeded(created);
      const productId = parseJson(created).id as string;
      const purchase = ['sandbox', 'purchase', '--vendor', vendor.id, '--product', productId];

      const text = await d.run(...purchase, '--email', 'anna@example.com', '--country', 'DE');
      succeeded(text);
      assert.match(text.stdout, /^Paid: TC-TR_\S+ \(ONE_TIME_PAYMENT_STATUS_PAID\)$/m);
      assert.match(text.stdout, /18\.00 \+ VAT 3\.42 = 21\.42 EUR/);
      assert.match(text.stdout, /licence: \S+/);

      const json = await d.run(
        ...purchase,
        '--email',
        'bob@example.com',
        '--country',
        'US',
        '--region',
        'CA',
        '--card',
        '5555555555554444',
        '--json',
      );
      succeeded(json);
      const out = parseJson(json);
      assert.match(out.transaction.id, /^TC-TR_/);
      assert.equal(out.transaction.status, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(out.transaction.email, 'bob@example.com');
      assert.equal(out.transaction.productId, productId);
      assert.equal(out.transaction.currency, 'USD');
      assert.equal(typeof out.licence, 'string');

      const declined = await d.run(...purchase, '--email', 'carl@example.com', '--card', '4000000000000002');
      failedWith(declined, /declined/i);
      assert.doesNotMatch(declined.stdout, /Paid/);
      const declinedJson = await d.run(
        ...purchase,
        '--email',
        'carl@example.com',
        '--card',
        '4000000000000002',
        '--json',
      );
      failedWith(declinedJson, /declined/i);
      assert.equal(parseJson(declinedJson).error, 'FAILED');

      failedWith(await d.run(...purchase, '--email', 'dora@example.com', '--expiry', '1234'), /--expiry/);
      failedWith(
        await d.run(
          'sandbox',
          'purchase',
          '--vendor',
          'TC-VE_UNKNOWN',
          '--product',
          productId,
          '--email',
          'e@example.com',
        ),
        /no vendor TC-VE_UNKNOWN/,
      );
      failedWith(
        await d.run(
          'sandbox',
          'purchase',
          '--vendor',
          vendor.id,
          '--product',
          'TC-PR_UNKNOWN',
          '--email',
          'e@example.com',
        ),
        /TC-PR_UNKNOWN/,
      );
    } finally {
      d.remove();
    }
  });

  test("sandbox clock moves a vendor's sandbox forward and renews; worker --once then finds nothing due", async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const created = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Monthly',
        '--type',
        'SUBSCRIPTION',
        '--frequency',
        'MONTHLY',
        '--price',
        'USD:10',
        '--json',
      );
      succeeded(created);
      succeeded(
        await d.run(
          'sandbox',
          'purchase',
          '--vendor',
          vendor.id,
          '--product',
          parseJson(created).id,
          '--email',
          'sub@example.com',
        ),
      );

      const read = await d.run('sandbox', 'clock', '--vendor', vendor.id, '--json');
      succeeded(read);
      assert.equal(parseJson(read).offsetMs, 0);

      const moved = await d.run('sandbox', 'clock', '--vendor', vendor.id, '--days', '32');
      succeeded(moved);
      assert.match(moved.stdout, /Billing: 1 renewed, 0 declined/);
      const again = await d.run('worker', '--once', '--json');
      succeeded(again);
      assert.equal(parseJson(again).renewed, 0, 'the renewal is not repeated');

      failedWith(
        await d.run('sandbox', 'clock', '--vendor', vendor.id, '--to', '2001-01-01T00:00:00Z'),
        /only moves forward/,
      );
      failedWith(await d.run('sandbox', 'clock', '--vendor', vendor.id, '--days', '-3'), /positive number/);
    } finally {
      d.remove();
    }
  });

  test('coupon create, list and revoke; a sandbox purchase with a coupon pays the discounted price', async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const created = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:20',
        '--json',
      );
      const productId = parseJson(created).id as string;
      const coupon = (...args: string[]) =>
        d.run('coupon', 'create', '--vendor', vendor.id, '--product', productId, ...args);

      const percent = await coupon('--code', 'launch10', '--percent', '10', '--json');
      succeeded(percent);
      assert.equal(parseJson(percent).code, 'LAUNCH10');
      assert.equal(parseJson(percent).percentOff, '10');
      const fixed = await coupon('--code', 'FIVE', '--amount', 'USD:5');
      succeeded(fixed);
      assert.match(fixed.stdout, /FIVE {2}5\.00 USD off/);

      failedWith(
        await coupon('--code', 'BOTH', '--percent', '5', '--amount', 'USD:1'),
        /either a percentage off or amounts off/,
      );
      failedWith(await coupon('--code', 'NONE'), /either a percentage off or amounts off/);
      failedWith(await coupon('--code', 'TOOMUCH', '--percent', '150'), /at most 100/);
      failedWith(await coupon('--code', 'EURONLY', '--amount', 'EUR:5'), /USD/);
      failedWith(await coupon('--code', 'PAST', '--percent', '5', '--expires', '2001-01-01'), /in the future/);
      failedWith(await coupon('--code', 'x', '--percent', '5'), /3 to 32/);
      failedWith(await coupon('--code', 'LAUNCH10', '--percent', '5'), /already has a coupon LAUNCH10/);

      const paid = await d.run(
        'sandbox',
        'purchase',
        '--vendor',
        vendor.id,
        '--product',
        productId,
        '--email',
        'c@example.com',
        '--coupon',
        'launch10',
        '--json',
      );
      succeeded(paid);
      assert.equal(parseJson(paid).transaction.netMinor, 1800);

      const listed = parseJson(await d.run('coupon', 'list', '--vendor', vendor.id, '--json')) as {
        id: string;
        code: string;
      }[];
      assert.deepEqual(
        listed.map((c) => c.code),
        ['LAUNCH10', 'FIVE'],
      );
      succeeded(await d.run('coupon', 'revoke', '--vendor', vendor.id, '--coupon', listed[0]!.id));
      failedWith(
        await d.run(
          'sandbox',
          'purchase',
          '--vendor',
          vendor.id,
          '--product',
          productId,
          '--email',
          'c@example.com',
          '--coupon',
          'launch10',
        ),
        /not valid/,
      );
      failedWith(await d.run('coupon', 'revoke', '--vendor', vendor.id, '--coupon', listed[0]!.id), /not found/);
    } finally {
      d.remove();
    }
  });

  test('vendor settings turns conversion from USD off and on', async () => {
    const d = sandboxDir();
    try {
      const { vendor } = await createVendor(d.run);
      const created = await d.run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:20',
        '--json',
      );
      const productId = parseJson(created).id as string;
      const buyInGermany = async () =>
        parseJson(
          await d.run(
            'sandbox',
            'purchase',
            '--vendor',
            vendor.id,
            '--product',
            productId,
            '--email',
            'x@example.com',
            '--country',
            'DE',
            '--json',
          ),
        ).transaction.currency;
      assert.equal(await buyInGermany(), 'EUR');
      const off = await d.run('vendor', 'settings', '--vendor', vendor.id, '--allow-conversion', 'no');
      succeeded(off);
      assert.match(off.stdout, /conversion from USD is off/);
      assert.equal(await buyInGermany(), 'USD');
      succeeded(await d.run('vendor', 'settings', '--vendor', vendor.id, '--allow-conversion', 'yes'));
      assert.equal(await buyInGermany(), 'EUR');
      failedWith(await d.run('vendor', 'settings', '--vendor', vendor.id, '--allow-conversion', 'maybe'), /yes or no/);
      failedWith(
        await d.run('vendor', 'settings', '--vendor', 'TC-VE_NOBODY', '--allow-conversion', 'no'),
        /TC-VE_NOBODY/,
      );
    } finally {
      d.remove();
    }
  });

  test('migrate --json reports the applied migrations, then nothing to apply', async () => {
    const d = sandboxDir();
    try {
      const first = await d.run('migrate', '--json');
      succeeded(first);
      const out = parseJson(first);
      assert.equal(out.dialect, 'sqlite');
      assert.ok(
        Array.isArray(out.applied) && out.applied.length > 0,
        `first migrate applies the schema: ${first.stdout}`,
      );
      const second = await d.run('migrate', '--json');
      succeeded(second);
      assert.deepEqual(parseJson(second), { applied: [], dialect: 'sqlite' });
      const text = await d.run('migrate');
      succeeded(text);
      assert.match(text.stdout, /Schema is up to date on sqlite/);
    } finally {
      d.remove();
    }
  });

  test('an unreachable database is one line of reason, not a stack trace', async () => {
    const d = sandboxDir();
    try {
      const env = {
        OPENTILL_SECRET: SECRET,
        OPENTILL_DATA_DIR: d.dir,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      };
      failedWith(await cliProcess(['migrate'], env), /^opentill: .*ECONNREFUSED/m);
      failedWith(await cli(['migrate'], env), /^opentill: .*ECONNREFUSED/m);
    } finally {
      d.remove();
    }
  });

  test('vendor, product and sandbox purchase against PostgreSQL', async (t) => {
    if (!(await storeKinds()).includes('postgres')) {
      t.skip('PostgreSQL is not reachable');
      return;
    }
    const fresh = await freshDatabase('postgres');
    await fresh.database.close(); // the CLI opens its own connections; the schema is already migrated
    const d = sandboxDir();
    const run = (...args: string[]) => cli(args, { OPENTILL_DATA_DIR: d.dir, DATABASE_URL: fresh.url! });
    try {
      const migrated = await run('migrate', '--json');
      succeeded(migrated);
      assert.deepEqual(parseJson(migrated), { applied: [], dialect: 'postgres' });
      const { vendor, credentials } = await createVendor(run);
      assert.match(credentials.sandbox, /^test_/);
      const created = await run(
        'product',
        'create',
        '--vendor',
        vendor.id,
        '--name',
        'Pro',
        '--type',
        'SUBSCRIPTION',
        '--frequency',
        'MONTHLY',
        '--price',
        'USD:19.99',
        '--price',
        'EUR:18',
        '--json',
      );
      succeeded(created);
      const paid = await run(
        'sandbox',
        'purchase',
        '--vendor',
        vendor.id,
        '--product',
        parseJson(created).id,
        '--email',
        'pg@example.com',
        '--country',
        'DE',
        '--json',
      );
      succeeded(paid);
      const { transaction } = parseJson(paid);
      assert.equal(transaction.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(transaction.currency, 'EUR');
      failedWith(
        await run(
          'sandbox',
          'purchase',
          '--vendor',
          vendor.id,
          '--product',
          parseJson(created).id,
          '--email',
          'pg@example.com',
          '--card',
          '4000000000000002',
        ),
        /declined/i,
      );
      // Nothing landed in SQLite: the data directory holds no store.
      assert.deepEqual(
        readdirSync(d.dir).filter((f) => f.endsWith('.db')),
        [],
      );
    } finally {
      d.remove();
      await fresh.drop();
    }
  });
});
