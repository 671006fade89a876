import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { hiddenFields, paidForm } from '../../support/checkout-form.ts';
import type { Kysely } from 'kysely';
import type { Schema } from '../../src/store/schema.ts';
import { dropRedisKeys, freshDatabase, REDIS_URL, redisPrefix, redisReachable, storeKinds } from '../../support/databases.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { cli, parseJson, spawnCli, succeeded } from '../helpers/cli.ts';
import { assertMoneyBookedOnce, attemptsSettled, mixedLoad, outageClient, PhaseRecorder } from '../helpers/outage-load.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * PostgreSQL fails under load (issue 31), as an operator runs opentill: a `serve --processes 2` cluster,
 * another `serve` and one `opentill worker`, each reaching the database through a TCP proxy of the
 * test's own, with Redis counting their rate limits and an SMTP server taking their customers' e-mails. The database
 * is stopped (the proxy resets every connection and refuses new ones, as a restart does) and then
 * every backend is terminated again and again (`pg_terminate_backend`). Throughout, a vendor's
 * customers buy, refund, charge stored cards, read and consume the feed, retrying as told. No process
 * may die; while the database is away clients get 503 with Retry-After, and /readyz says 503; within
 * 2 s of its return everything serves again; what was acknowledged is booked once; and the worker
 * renews what fell due while it could not reach the database.
 */
const postgres = (await storeKinds()).includes('postgres');
const redisUp = await redisReachable();
const DAY_SECONDS = 86_400;
const SUBSCRIBERS = 4;

describe('PostgreSQL away under load', { skip: !(postgres && redisUp) && 'needs PostgreSQL and Redis' }, () => {
  test(
    'stopped, then its backends terminated: no process dies, clients get 503 with Retry-After, all serve within 2 s of its return, money booked once',
    { timeout: 180_000 },
    async (tc) => {
      const store = await freshDatabase('postgres');
      const dataDir = mkdtempSync(join(tmpdir(), 'opentill-pg-outage-'));
      const through = (proxy: TcpProxy) => Object.assign(new URL(store.url!), { hostname: '127.0.0.1', port: String(proxy.port) }).toString();
      const apiProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const workerProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const inbox = await startSmtpInbox();
      const prefix = redisPrefix();
      const env = {
        DATABASE_URL: through(apiProxy),
        REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
        SMTP_URL: inbox.url,
        SMTP_FROM: 'receipts@outage.test',
        SMTP_SANDBOX_TO: 'customers',
        OPENTILL_SECRET: SERVER_SECRET,
        OPENTILL_DATA_DIR: dataDir,
        OPENTILL_DEMO: 'false',
        OPENTILL_WORKER: 'false',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_ADDRESS: '1000000',
        RATE_LIMIT_PER_CREDENTIAL: '1000000',
        BILLING_INTERVAL_SECONDS: '1',
        RECONCILE_AFTER_SECONDS: '1',
        IDEMPOTENCY_STALE_SECONDS: '3',
      };
      const ports = [await freePort(), await freePort()];
      const api: ServerProcess[] = [];
      const worker = spawnCli(['worker'], { ...env, DATABASE_URL: through(workerProxy) });
      const admin = new pg.Client({ connectionString: store.url });
      try {
        await admin.connect();
        const cliJson = async (...args: string[]) => {
          const result = await cli([...args, '--json'], { ...env, DATABASE_URL: store.url! });
          succeeded(result);
          return parseJson(result);
        };
        const made = await cliJson('vendor', 'create', '--name', 'Outage Ltd', '--email', 'owner@outage.test');
        const vendorId = made.vendor.id as string;
        const product = async (...args: string[]) => (await cliJson('product', 'create', '--vendor', vendorId, ...args)).id as string;
        const vendor = {
          auth: made.credentials.sandbox as string,
          once: await product('--name', 'Licence', '--type', 'ONETIME', '--price', 'USD:20'),
          vaulted: await product('--name', 'Card on file', '--type', 'VAULTED', '--price', 'USD:0'),
          daily: await product('--name', 'Daily', '--type', 'SUBSCRIPTION', '--frequency', 'DAILY', '--price', 'USD:3'),
        };
        for (const [i, port] of ports.entries()) {
          // The first is a cluster of two processes, whose primary must not lose them to the outage.
          api[i] = new ServerProcess(port, dataDir, { env, args: i === 0 ? ['--processes', '2'] : [] });
          await within(api[i]!.started(), `API process ${i}`);
        }
        const recorder = new PhaseRecorder();
        const client = outageClient(ports, recorder);
        const authed = { authorization: vendor.auth };
        const checkout = async (productId: string, email: string) => {
          const page = await client.send(`/sandbox/payment/product/${productId}?country=DE`);
          const body = paidForm(hiddenFields(page.text), { token: `setup-${email.replace(/\W/g, '-')}`, email, firstName: 'A', lastName: 'B' });
          const res = await client.send(`/sandbox/payment/product/${productId}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body,
          });
          assert.equal(res.status, 200, res.text.slice(0, 300));
        };
        for (let i = 0; i < SUBSCRIBERS; i++) await checkout(vendor.daily, `daily-${i}@outage.test`);
        await checkout(vendor.vaulted, 'vault@outage.test');
        const vaults = JSON.parse((await client.send('/sandbox/v1/transactions/vault%40outage.test', { headers: authed })).text) as { id: string }[];

        let running = true;
        const load = mixedLoad(client, vendor, vaults[0]!.id, () => running);
        recorder.start('before');
        await sleep(3_000);

        // The worker loses the database first, then the sandbox day moves, so the renewals fall due while no worker can reach it.
        await workerProxy.cut();
        const moved = await client.send('/sandbox/v1/clock/advance', {
          method: 'POST',
          headers: { ...authed, 'content-type': 'application/json' },
          body: JSON.stringify({ seconds: DAY_SECONDS }),
        });
        assert.equal(moved.status, 200, moved.text);
        recorder.start('stopped');
        await apiProxy.cut();
        await sleep(1_000);
        for (const port of ports) {
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
          assert.equal(ready.status, 503, 'not ready while the database is away');
          assert.match(ready.headers.get('retry-after') ?? '', /^\d+$/);
          assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'alive while the database is away');
        }
        // A buyer pressing Pay meanwhile: the form comes back as typed (the card aside), to send again in a moment.
        const paying = await fetch(`http://127.0.0.1:${ports[1]}/sandbox/payment/product/${vendor.once}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: paidForm(
            { expectedCurrency: 'EUR', expectedTotal: '2380' },
            { token: 'pressed-pay-while-away', email: 'away@outage.test', firstName: 'A', lastName: 'Way' },
          ),
        });
        assert.equal(paying.status, 503);
        const again = await paying.text();
        assert.match(again, /name="email" value="away@outage\.test"/);
        assert.match(again, /name="token" value="pressed-pay-while-away"/);
        assert.doesNotMatch(again, /4242424242424242/);
        await sleep(4_000);

        recorder.start('back');
        await Promise.all([apiProxy.restore(), workerProxy.restore()]);
        const back = performance.now();
        await Promise.all(ports.map((port) => readyAgain(port)));
        const readyMs = performance.now() - back;
        assert.ok(readyMs < 2_000, `every process ready within 2 s of the database's return (${Math.round(readyMs)} ms)`);
        await sleep(3_000);

        recorder.start('terminate');
        const terminating = (async () => {
          for (const started = performance.now(); performance.now() - started < 3_000;) {
            await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
            await sleep(100);
          }
        })();
        await terminating;
        recorder.start('after');
        await sleep(3_000);
        running = false;
        await load.done;

        // The worker renews what fell due while it was cut off, and settles what the faults left open.
        await subscriptionsRenewed(admin, vendor.daily);
        await attemptsSettled(store.database.kysely);
        await assertMoneyBookedOnce(store.database.kysely, load.outcome);
        const emails = await emailsSentOnce(store.database.kysely, inbox);

        assert.ok(api.every((p) => p.running) && worker.child.exitCode === null, 'no process died');
        assert.doesNotMatch(api[0]!.stderr, /exited/, "the cluster's primary lost none of its processes");
        const figures = ['before', 'stopped', 'back', 'terminate', 'after'].map((phase) => recorder.figures(phase));
        for (const f of figures) {
          assert.equal(f.statuses['500'] ?? 0, 0, `${f.phase}: no 500`);
          assert.equal(f.statuses['no connection'] ?? 0, 0, `${f.phase}: every process kept its port open`);
        }
        assert.ok((figures[1]!.statuses['503'] ?? 0) > 0, 'the stopped database was answered with 503');
        assert.ok(load.outcome.purchases.length >= 5 && load.outcome.refunds.size >= 2, `work went through (${load.outcome.purchases.length} purchases)`);
        report(tc, recorder, load.outcome, readyMs, emails);
      } finally {
        worker.child.kill('SIGKILL');
        for (const p of api) await p?.kill();
        await admin.end().catch(() => undefined);
        await apiProxy.close();
        await workerProxy.close();
        await store.drop();
        await inbox.close();
        await dropRedisKeys(prefix);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  test(
    'started while the database is down, serve and worker wait for it (logging once, neither exiting nor spinning) and start when it returns',
    { timeout: 60_000 },
    async () => {
      const store = await freshDatabase('postgres');
      const dataDir = mkdtempSync(join(tmpdir(), 'opentill-pg-down-'));
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const workerProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      await proxy.drop();
      await workerProxy.drop();
      const through = (p: TcpProxy) => Object.assign(new URL(store.url!), { hostname: '127.0.0.1', port: String(p.port) }).toString();
      const env = {
        DATABASE_URL: through(proxy),
        OPENTILL_SECRET: SERVER_SECRET,
        OPENTILL_DATA_DIR: dataDir,
        OPENTILL_WORKER: 'false',
        LOG_LEVEL: 'warn',
      };
      const server = new ServerProcess(await freePort(), dataDir, { env });
      const worker = spawnCli(['worker'], { ...env, DATABASE_URL: through(workerProxy) });
      let workerLog = '';
      worker.child.stdout!.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));
      try {
        await within(server.waitFor(/does not answer/), 'the server to say it waits');
        const health = await fetch(`${server.url}/healthz`);
        assert.equal(health.status, 200, 'alive while it waits');
        const ready = await fetch(`${server.url}/readyz`);
        assert.equal(ready.status, 503, 'not ready while it waits');
        const api = await fetch(`${server.url}/sandbox/v1/transactions/a%40b.test`, { headers: { authorization: 'test_x:y' } });
        assert.equal(api.status, 503);
        assert.match(api.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal(((await api.json()) as { error: string }).error, 'SERVICE_UNAVAILABLE');
        const page = await fetch(`${server.url}/sandbox/payment/product/TC-PR_x`);
        assert.equal(page.status, 503, 'a page says so too');
        assert.match(await page.text(), /Temporarily unavailable/);
        const paying = await fetch(`${server.url}/sandbox/payment/product/TC-PR_x`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            token: 'typed-while-down-0123456789',
            email: 'typed@down.test',
            cardNumber: '4242424242424242',
            cardCvc: '123',
          }).toString(),
        });
        assert.equal(paying.status, 503);
        assert.match(paying.headers.get('retry-after') ?? '', /^\d+$/);
        const retry = await paying.text();
        assert.match(retry, /<button type="submit">Try again<\/button>/);
        assert.match(retry, /name="email" value="typed@down\.test"/, 'what the buyer typed is kept');
        assert.match(retry, /name="token" value="typed-while-down-0123456789"/, 'the same purchase when sent again');
        assert.doesNotMatch(retry, /4242424242424242|name="cardCvc"/, 'the card is not written back');

        const triesBefore = [proxy.connections, workerProxy.connections];
        await sleep(3_000);
        // A try about every second: not a spin, and not a wait much longer than the outage.
        for (const [i, p] of [proxy, workerProxy].entries()) {
          const tries = p.connections - triesBefore[i]!;
          assert.ok(tries >= 2 && tries <= 6, `${i ? 'the worker' : 'the server'} tried again ${tries} times in 3 s`);
        }
        assert.equal(server.stdout.match(/does not answer/g)?.length, 1, `logged once:\n${server.stdout}`);
        assert.equal(workerLog.match(/does not answer/g)?.length, 1, `the worker logged once:\n${workerLog}`);
        assert.ok(server.running && worker.child.exitCode === null, 'neither exited');

        await Promise.all([proxy.restore(), workerProxy.restore()]);
        const back = performance.now();
        await within(server.started(), 'the start once the database is back');
        await readyAgain(server.port);
        assert.ok(performance.now() - back < 5_000, 'started within a few seconds of its return');
        const demo = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m);
        assert.ok(demo, 'the first start seeded the demo once the database was there');
        assert.equal((await fetch(`${server.url}/sandbox/v1/transactions/bob%40example.com`, { headers: { authorization: demo[1]! } })).status, 200);
        for (let i = 0; !/billing worker running/.test(workerLog); i++) {
          assert.ok(i < 100, `the worker started:\n${workerLog}`);
          await sleep(50);
        }
      } finally {
        worker.child.kill('SIGKILL');
        await server.kill();
        await proxy.close();
        await workerProxy.close();
        await store.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

/** Waits for the worker to send every queued customer e-mail: each arrives once. Returns how many. */
async function emailsSentOnce(db: Kysely<Schema>, inbox: SmtpInbox): Promise<number> {
  for (let i = 0; ; i++) {
    const unsent = await db.selectFrom('customer_emails').select('id').where('status', '!=', 'SENT').execute();
    if (unsent.length === 0) break;
    assert.ok(i < 600, `every e-mail sent (${unsent.length} left)`);
    await sleep(100);
  }
  const queued = await db.selectFrom('customer_emails').select('id').execute();
  const ids = inbox.messages.map((m) => m.messageId);
  assert.equal(new Set(ids).size, ids.length, 'no e-mail arrived twice');
  assert.equal(ids.length, queued.length, 'every queued e-mail arrived');
  return ids.length;
}

/** Polls a process's /readyz until it says 200. */
async function readyAgain(port: number) {
  for (let i = 0; ; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return;
    assert.ok(i < 400, `process on ${port} ready again`);
    await sleep(10);
  }
}

/** Each daily subscription has its first payment and the one renewal the moved day made due: no more, no less. */
async function subscriptionsRenewed(admin: pg.Client, productId: string) {
  const count = async () =>
    (
      await admin.query<{ payments: number }>(
        `select count(e.id)::int as payments from transactions t left join ledger_entries e on e.transaction_id = t.id and e.type = 'SUBSCRIPTION_PAYMENT' where t.product_id = $1 group by t.id`,
        [productId],
      )
    ).rows.map((r) => r.payments);
  for (let i = 0; ; i++) {
    const payments = await count();
    if (payments.length === SUBSCRIBERS && payments.every((n) => n === 2)) return;
    assert.ok(i < 300 && payments.every((n) => n <= 2), `every daily subscription renewed once: ${payments.join(', ')}`);
    await sleep(100);
  }
}

function report(
  tc: TestContext,
  recorder: PhaseRecorder,
  outcome: { purchases: string[]; refunds: Set<string>; vaultedCharges: Map<string, number> },
  readyMs: number,
  emails: number,
) {
  const charges = [...outcome.vaultedCharges.values()].reduce((a, b) => a + b, 0);
  tc.diagnostic(
    `\n${recorder.table()}\nready again ${Math.round(readyMs)} ms after the database returned; ` +
      `${outcome.purchases.length} purchases, ${outcome.refunds.size} refunds, ${charges} stored-card charges acknowledged and booked once; ${emails} e-mails sent once; 0 processes died`,
  );
}
