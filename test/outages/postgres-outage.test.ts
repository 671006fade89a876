import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freshDatabase, redisReachable, storeKinds } from '../../support/databases.ts';
import { spawnCli } from '../helpers/cli.ts';
import {
  assertMoneyBookedOnce,
  attemptsSettled,
  type LoadOutcome,
  type PhaseRecorder,
} from '../helpers/outage-load.ts';
import {
  emailsSentOnce,
  readyAgain,
  startOutageStack,
  subscriptionsRenewed,
  type OutageStack,
} from '../helpers/outage-stack.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { paidForm } from '../../support/checkout-form.ts';

/**
 * PostgreSQL fails under load (issue 31), as an operator runs opentill (test/helpers/outage-stack.ts:
 * a `serve --processes 2` cluster, another `serve` and an `opentill worker`, with Redis and an SMTP
 * server), each reaching the database through a TCP proxy of the test's own. The database is stopped
 * (the proxy closes every connection and refuses new ones, as a restart does), then every backend is
 * terminated again and again (`pg_terminate_backend`). Throughout, a vendor's customers buy, refund,
 * charge stored cards, read and consume the feed, retrying as told. No process may die; while the
 * database is away clients get 503 with Retry-After and /readyz says 503; within 2 s of its return
 * everything serves again; what was acknowledged is booked once, every e-mail arrives once; and the
 * worker renews what fell due while it could not reach the database.
 */
const postgres = (await storeKinds()).includes('postgres');
const redisUp = await redisReachable();

const through = (url: string, proxy: TcpProxy) =>
  Object.assign(new URL(url), { hostname: '127.0.0.1', port: String(proxy.port) }).toString();

/** While the database is away: every process alive, not ready, saying when to retry; a buyer pressing Pay gets the form back as typed. */
async function whileAway(stack: OutageStack) {
  for (const port of stack.ports) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 503, 'not ready while the database is away');
    assert.match(ready.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'alive while the database is away');
  }
  const paying = await fetch(`http://127.0.0.1:${stack.ports[1]}/sandbox/payment/product/${stack.vendor.once}`, {
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
}

/** Terminates every backend of the test database but its own, every 100 ms for `ms`. */
async function terminateBackends(admin: pg.Client, ms: number) {
  for (const started = performance.now(); performance.now() - started < ms;) {
    await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    await sleep(100);
  }
}

describe('PostgreSQL away under load', { skip: !(postgres && redisUp) && 'needs PostgreSQL and Redis' }, () => {
  test(
    'stopped, then its backends terminated: no process dies, clients get 503 with Retry-After, all serve within 2 s of its return, money booked once',
    // Its waits end in assertions of their own (a request's final answer 150 s, the e-mails 2 minutes): the timeout is past them.
    { timeout: 300_000 },
    async (tc) => {
      const store = await freshDatabase('postgres');
      const apiProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const workerProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const admin = new pg.Client({ connectionString: store.url });
      let stack: OutageStack | undefined;
      try {
        await admin.connect();
        stack = await startOutageStack({
          databaseUrls: { api: through(store.url!, apiProxy), worker: through(store.url!, workerProxy) },
          setupUrl: store.url!,
        });
        const { recorder } = stack;
        const load = stack.startLoad();
        recorder.start('before');
        await sleep(3_000);

        // The worker loses the database first, then the sandbox day moves, so the renewals fall due while no worker can reach it.
        await workerProxy.cut();
        await stack.nextDay();
        recorder.start('stopped');
        await apiProxy.cut();
        await sleep(1_000);
        await whileAway(stack);
        await sleep(4_000);

        recorder.start('back');
        await Promise.all([apiProxy.restore(), workerProxy.restore()]);
        const back = performance.now();
        await Promise.all(stack.ports.map((port) => readyAgain(port)));
        const readyMs = performance.now() - back;
        assert.ok(
          readyMs < 2_000,
          `every process ready within 2 s of the database's return (${Math.round(readyMs)} ms)`,
        );
        await sleep(3_000);

        recorder.start('terminate');
        await terminateBackends(admin, 3_000);
        recorder.start('after');
        await sleep(3_000);
        const outcome = await load.stop();

        // The worker renews what fell due while it was cut off, and settles what the faults left open.
        await subscriptionsRenewed(store.database.kysely, stack.vendor.daily, 1);
        await attemptsSettled(store.database.kysely);
        await assertMoneyBookedOnce(store.database.kysely, outcome);
        const emails = await emailsSentOnce(store.database.kysely, stack.inbox);
        assert.ok(stack.alive(), 'no process died, and the cluster replaced none');
        const figures = ['before', 'stopped', 'back', 'terminate', 'after'].map((phase) => recorder.figures(phase));
        for (const f of figures) {
          assert.equal(f.statuses['500'] ?? 0, 0, `${f.phase}: no 500`);
          assert.equal(f.statuses['no connection'] ?? 0, 0, `${f.phase}: every process kept its port open`);
        }
        assert.ok((figures[1]!.statuses['503'] ?? 0) > 0, 'the stopped database was answered with 503');
        assert.ok(
          outcome.purchases.length >= 5 && outcome.refunds.size >= 2,
          `work went through (${outcome.purchases.length} purchases)`,
        );
        report(tc, recorder, outcome, readyMs, emails);
      } finally {
        await stack?.close();
        await admin.end().catch(() => undefined);
        await apiProxy.close();
        await workerProxy.close();
        await store.drop();
      }
    },
  );

  test(
    'started while the database is down, a serve cluster and a worker wait for it (each logging once, neither exiting nor spinning) and start when it returns',
    { timeout: 60_000 },
    async () => {
      const store = await freshDatabase('postgres');
      const dataDir = mkdtempSync(join(tmpdir(), 'opentill-pg-down-'));
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      const workerProxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      await proxy.drop();
      await workerProxy.drop();
      const env = {
        DATABASE_URL: through(store.url!, proxy),
        OPENTILL_SECRET: SERVER_SECRET,
        OPENTILL_DATA_DIR: dataDir,
        OPENTILL_WORKER: 'false',
        LOG_LEVEL: 'warn',
      };
      // A cluster: its primary waits to migrate, its two processes listen and wait for the schema.
      const server = new ServerProcess(await freePort(), dataDir, { env, args: ['--processes', '2'] });
      const worker = spawnCli(['worker'], { ...env, DATABASE_URL: through(store.url!, workerProxy) });
      let workerLog = '';
      worker.child.stdout!.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));
      try {
        await within(server.waitFor(/waiting for the database/), 'the server to say it waits');
        const health = await fetch(`${server.url}/healthz`);
        assert.equal(health.status, 200, 'alive while it waits');
        const ready = await fetch(`${server.url}/readyz`);
        assert.equal(ready.status, 503, 'not ready while it waits');
        const api = await fetch(`${server.url}/sandbox/v1/transactions/a%40b.test`, {
          headers: { authorization: 'test_x:y' },
        });
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
        for (const [i, [p, processes]] of (
          [
            [proxy, 3],
            [workerProxy, 1],
          ] as const
        ).entries()) {
          const tries = p.connections - triesBefore[i]!;
          assert.ok(
            tries >= 2 * processes && tries <= 6 * processes,
            `${i ? 'the worker' : 'the cluster'} tried again ${tries} times in 3 s`,
          );
        }
        const said = (log: string) => log.match(/waiting for the database/g)?.length;
        assert.equal(said(server.stdout), 2, `each process of the cluster logged once:\n${server.stdout}`);
        assert.equal(said(server.stderr), 1, `its primary logged once:\n${server.stderr}`);
        assert.equal(said(workerLog), 1, `the worker logged once:\n${workerLog}`);
        assert.ok(server.running && worker.child.exitCode === null, 'neither exited');

        await Promise.all([proxy.restore(), workerProxy.restore()]);
        const back = performance.now();
        await within(server.started(), 'the start once the database is back');
        await readyAgain(server.port);
        assert.ok(performance.now() - back < 5_000, 'started within a few seconds of its return');
        const demo = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m);
        assert.ok(demo, 'the first start seeded the demo once the database was there');
        assert.equal(
          (
            await fetch(`${server.url}/sandbox/v1/transactions/bob%40example.com`, {
              headers: { authorization: demo[1]! },
            })
          ).status,
          200,
        );
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

function report(tc: TestContext, recorder: PhaseRecorder, outcome: LoadOutcome, readyMs: number, emails: number) {
  const charges = [...outcome.vaultedCharges.values()].reduce((a, b) => a + b, 0);
  tc.diagnostic(
    `\n${recorder.table()}\nready again ${Math.round(readyMs)} ms after the database returned; ` +
      `${outcome.purchases.length} purchases, ${outcome.refunds.size} refunds, ${charges} stored-card charges acknowledged and booked once; ${emails} e-mails sent once; 0 processes died`,
  );
}
