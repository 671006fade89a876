import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { startStripeStandIn } from '../helpers/stripe-standin/index.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';

/** `opentill doctor` (issue 16): each check with what to fix, exit 1 while anything needs fixing, and no migration of its own. */
const SECRET = 'doctor-test-secret-0123456789-0123456789';

describe('opentill doctor', { concurrency: 3 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-doctor-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let dirs = 0;
  const dataDir = () => join(root, `data-${++dirs}`);
  const doctor = async (env: Record<string, string>) => {
    const result = await cli(['doctor', '--json'], { OPENTILL_SECRET: SECRET, ...env });
    const report = parseJson(result) as {
      healthy: boolean;
      checks: { name: string; status: string; detail: string }[];
    };
    return { result, report, check: (name: string) => report.checks.find((c) => c.name === name) };
  };

  test('a fresh install: nothing to fix, and it says the database does not exist yet', async () => {
    const { result, report, check } = await doctor({ OPENTILL_DATA_DIR: dataDir() });
    succeeded(result);
    assert.equal(report.healthy, true);
    assert.equal(check('store')?.status, 'note');
    assert.match(check('store')!.detail, /no database yet .* `opentill serve` creates it/);
    assert.equal(check('production payments')?.status, 'note');
    assert.match(
      check('production payments')!.detail,
      /^no payment processor is configured for production: set STRIPE_SECRET_KEY/,
    );
  });

  test('a migrated store: every check passes; a production without keys is a note, not a fault', async () => {
    const dir = dataDir();
    succeeded(await cli(['migrate'], { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir }));
    const { result, check } = await doctor({ OPENTILL_DATA_DIR: dir });
    succeeded(result);
    assert.deepEqual(
      ['configuration', 'secret', 'store', 'schema', 'sandbox payments'].map((name) => check(name)?.status),
      ['ok', 'ok', 'ok', 'ok', 'ok'],
    );
    assert.equal(check('production payments')?.status, 'note');
    assert.match(check('production payments')!.detail, /STRIPE_SECRET_KEY/);

    // A migration missing: named, with the command that runs it; and doctor itself migrates nothing.
    const db = new SQLite(join(dir, 'opentill.db'));
    db.prepare("delete from kysely_migration where name = '0017-panel-flashes'").run();
    db.close();
    for (let i = 0; i < 2; i++) {
      const missing = await doctor({ OPENTILL_DATA_DIR: dir });
      assert.equal(missing.result.code, 1);
      assert.equal(missing.check('schema')?.status, 'fix');
      assert.match(
        missing.check('schema')!.detail,
        /1 migration\(s\) not run \(0017-panel-flashes\): run `opentill migrate`/,
      );
    }
  });

  test('a bad setting, an unreachable PostgreSQL: each a FIX line saying what to do', async () => {
    const badSecret = await cli(['doctor'], { OPENTILL_SECRET: 'short', OPENTILL_DATA_DIR: dataDir() });
    assert.equal(badSecret.code, 1);
    assert.match(badSecret.stdout, /^FIX {3}configuration: OPENTILL_SECRET must have at least 32 characters\.$/m);
    assert.match(badSecret.stdout, /Fix the lines marked FIX/);

    const unreachable = await doctor({ OPENTILL_DATA_DIR: dataDir(), DATABASE_URL: 'postgres://127.0.0.1:1/opentill' });
    assert.equal(unreachable.result.code, 1);
    assert.match(unreachable.check('store')!.detail, /^PostgreSQL does not answer .*check DATABASE_URL/);
  });

  test('Stripe keys: the account answers; without the webhook secret one FIX line says to run stripe setup, once', async () => {
    const s = await startStripeStandIn({ webhookDelivery: 'manual' });
    try {
      const dir = dataDir();
      succeeded(await cli(['migrate'], { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir }));
      const keys = { STRIPE_SECRET_KEY: s.secretKey, STRIPE_PUBLISHABLE_KEY: s.publishableKey, STRIPE_API_URL: s.url };
      const text = await cli(['doctor'], { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir, ...keys });
      assert.equal(text.code, 1);
      const line = text.stdout.split('\n').find((l) => l.includes('production payments'))!;
      assert.match(
        line,
        /^FIX {3}production payments: Stripe account acct_\w+ \(test mode\) answers; no webhook signing secret \(STRIPE_WEBHOOK_SECRET\): run `opentill stripe setup`$/,
      );
      assert.equal(line.split('stripe setup').length, 2, 'the fix is said once');
      assert.ok(!text.stdout.includes(s.secretKey), 'no key is printed');

      const set = await doctor({ OPENTILL_DATA_DIR: dir, ...keys, STRIPE_WEBHOOK_SECRET: 'whsec_doctor' });
      succeeded(set.result);
      assert.equal(set.check('production payments')?.status, 'ok');
      assert.match(set.check('production payments')!.detail, /^Stripe account acct_\w+ \(test mode\) answers; cards/);
    } finally {
      await s.close();
    }
  });

  test('Stripe cannot be reached (a closed port): one FIX line saying what to check, and what to run after, each once', async () => {
    const dir = dataDir();
    succeeded(await cli(['migrate'], { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir }));
    // Port 1: below the ephemeral range, so no other test's server can be given it meanwhile (a port found
    // free and let go was, once, and answered in another protocol).
    const closed = 1;
    const env = {
      OPENTILL_SECRET: SECRET,
      OPENTILL_DATA_DIR: dir,
      STRIPE_API_URL: `http://127.0.0.1:${closed}`,
      STRIPE_SANDBOX_SECRET_KEY: 'sk_test_doctor_sandbox',
      STRIPE_SANDBOX_PUBLISHABLE_KEY: 'pk_test_doctor_sandbox',
    };
    const text = await cli(['doctor'], env);
    assert.equal(text.code, 1);
    const lines = text.stdout.split('\n').filter((l) => l.includes('sandbox payments'));
    assert.deepEqual(lines, [
      `FIX   sandbox payments: Stripe cannot be reached at http://127.0.0.1:${closed}, STRIPE_API_URL (connect ECONNREFUSED 127.0.0.1:${closed}): check STRIPE_API_URL and that this machine can reach it; then run \`opentill stripe setup --sandbox\`, which also prints the webhook signing secret to set as STRIPE_SANDBOX_WEBHOOK_SECRET`,
    ]);
    assert.doesNotMatch(text.stdout, /An error occurred with our connection/);

    // No database yet: the keys are checked all the same.
    const fresh = await doctor({ ...env, OPENTILL_DATA_DIR: dataDir() });
    assert.equal(fresh.check('store')?.status, 'note');
    assert.equal(fresh.check('sandbox payments')?.status, 'fix');
    assert.match(fresh.check('sandbox payments')!.detail, /^Stripe cannot be reached at /);

    // With the secret set, what to check alone.
    const withSecret = await doctor({ ...env, STRIPE_SANDBOX_WEBHOOK_SECRET: 'whsec_doctor' });
    assert.equal(withSecret.check('sandbox payments')?.status, 'fix');
    assert.equal(
      withSecret.check('sandbox payments')!.detail,
      `Stripe cannot be reached at http://127.0.0.1:${closed}, STRIPE_API_URL (connect ECONNREFUSED 127.0.0.1:${closed}): check STRIPE_API_URL and that this machine can reach it`,
    );
  });

  test('customer e-mails: a note while off; with SMTP, OK when the server takes a login, FIX when it does not answer, and no password printed', async () => {
    const dir = dataDir();
    succeeded(await cli(['migrate'], { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir }));
    const off = await doctor({ OPENTILL_DATA_DIR: dir });
    assert.equal(off.check('customer e-mails')?.status, 'note');
    assert.match(off.check('customer e-mails')!.detail, /off: SMTP_URL is not set/);
    const inbox = await startSmtpInbox();
    try {
      const on = await doctor({
        OPENTILL_DATA_DIR: dir,
        SMTP_URL: inbox.url.replace('smtp://', 'smtp://mailer:hunter2-secret@'),
        SMTP_FROM: 'receipts@example.com',
      });
      assert.equal(on.check('customer e-mails')?.status, 'ok', on.check('customer e-mails')?.detail);
      assert.equal(on.check('customer e-mails')!.detail, `sent from receipts@example.com through ${inbox.url}`);
      assert.ok(!on.result.stdout.includes('hunter2'), 'no SMTP password is printed');
      assert.equal(inbox.messages.length, 0, 'nothing is sent');
    } finally {
      await inbox.close();
    }
    const down = await doctor({
      OPENTILL_DATA_DIR: dir,
      SMTP_URL: 'smtp://127.0.0.1:1',
      SMTP_FROM: 'receipts@example.com',
    });
    assert.equal(down.result.code, 1);
    assert.match(
      down.check('customer e-mails')!.detail,
      /^smtp:\/\/127\.0\.0\.1:1 did not accept a connection and login \(ESOCKET: connect ECONNREFUSED/,
    );
  });
});
