import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { hiddenFields, paidForm } from '../../support/checkout-form.ts';
import { dropRedisKeys, REDIS_URL, redisPrefix } from '../../support/databases.ts';
import type { Schema } from '../../src/store/schema.ts';
import { cli, parseJson, spawnCli, succeeded } from './cli.ts';
import { mixedLoad, outageClient, PhaseRecorder } from './outage-load.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from './server-process.ts';
import { startSmtpInbox, type SmtpInbox } from './smtp-inbox.ts';

/**
 * opentill as an operator runs it on PostgreSQL, for the outage tests (test/outages/) and for measuring
 * a real restart of the machine's PostgreSQL by hand: a `serve --processes 2` cluster, another
 * `serve`, and an `opentill worker`, with Redis counting their rate limits and an SMTP server taking
 * their customers' e-mails; a vendor with a one-time product, a stored card and daily subscriptions;
 * and a client that buys, refunds, charges and reads through them (test/helpers/outage-load.ts).
 * `databaseUrls` says how the API processes and the worker reach the database (through the tests'
 * proxies, or directly); `setupUrl` is the direct one the CLI sets the vendor up with.
 */
export interface OutageStack {
  ports: number[];
  api: ServerProcess[];
  worker: ReturnType<typeof spawnCli>;
  inbox: SmtpInbox;
  vendor: { auth: string; once: string; vaulted: string; daily: string };
  recorder: PhaseRecorder;
  client: ReturnType<typeof outageClient>;
  /** Starts the customers' load; `stop` ends it and waits for what is in flight. */
  startLoad(): { stop(): Promise<ReturnType<typeof mixedLoad>['outcome']> };
  /** Moves the vendor's sandbox clock a day on: its daily subscriptions fall due. */
  nextDay(): Promise<void>;
  /** Every process still runs, and the cluster's primary replaced none. */
  alive(): boolean;
  close(): Promise<void>;
}

export const SUBSCRIBERS = 4;

export async function startOutageStack(options: {
  databaseUrls: { api: string; worker: string };
  setupUrl: string;
}): Promise<OutageStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'opentill-outage-'));
  const inbox = await startSmtpInbox();
  const prefix = redisPrefix();
  const env = {
    DATABASE_URL: options.databaseUrls.api,
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
  const worker = spawnCli(['worker'], { ...env, DATABASE_URL: options.databaseUrls.worker });
  /** The load started and not yet stopped: a test that failed midway stops it before the processes go. */
  const loads = new Set<() => Promise<unknown>>();
  let client: ReturnType<typeof outageClient> | undefined;
  const close = async () => {
    client?.abandon();
    for (const stop of loads) await stop().catch(() => undefined);
    worker.child.kill('SIGKILL');
    for (const p of api) await p.kill();
    await inbox.close();
    await dropRedisKeys(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const vendor = await setUpVendor({ ...env, DATABASE_URL: options.setupUrl });
    for (const [i, port] of ports.entries()) {
      // The first is a cluster of two processes, whose primary must not lose them to an outage.
      api[i] = new ServerProcess(port, dataDir, { env, args: i === 0 ? ['--processes', '2'] : [] });
      await within(api[i]!.started(), `API process ${i}`);
    }
    const recorder = new PhaseRecorder();
    const customers = (client = outageClient(ports, recorder));
    for (let i = 0; i < SUBSCRIBERS; i++) await checkout(customers, vendor.daily, `daily-${i}@outage.test`);
    await checkout(customers, vendor.vaulted, 'vault@outage.test');
    const [vault] = JSON.parse(
      (
        await customers.send('/sandbox/v1/transactions/vault%40outage.test', {
          headers: { authorization: vendor.auth },
        })
      ).text,
    ) as {
      id: string;
    }[];
    return {
      ports,
      api,
      worker,
      inbox,
      vendor,
      recorder,
      client: customers,
      startLoad() {
        let running = true;
        const load = mixedLoad(customers, vendor, vault!.id, () => running);
        const stop = async () => {
          running = false;
          loads.delete(stop);
          await load.done;
          return load.outcome;
        };
        loads.add(stop);
        return { stop };
      },
      async nextDay() {
        const moved = await customers.send('/sandbox/v1/clock/advance', {
          method: 'POST',
          headers: { authorization: vendor.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ seconds: 86_400 }),
        });
        assert.equal(moved.status, 200, moved.text);
      },
      alive: () => api.every((p) => p.running) && worker.child.exitCode === null && !/exited/.test(api[0]!.stderr),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function setUpVendor(env: Record<string, string>) {
  const cliJson = async (...args: string[]) => {
    const result = await cli([...args, '--json'], env);
    succeeded(result);
    return parseJson(result);
  };
  const made = await cliJson('vendor', 'create', '--name', 'Outage Ltd', '--email', 'owner@outage.test');
  const product = async (...args: string[]) =>
    (await cliJson('product', 'create', '--vendor', made.vendor.id as string, ...args)).id as string;
  return {
    auth: made.credentials.sandbox as string,
    once: await product('--name', 'Licence', '--type', 'ONETIME', '--price', 'USD:20'),
    vaulted: await product('--name', 'Card on file', '--type', 'VAULTED', '--price', 'USD:0'),
    daily: await product('--name', 'Daily', '--type', 'SUBSCRIPTION', '--frequency', 'DAILY', '--price', 'USD:3'),
  };
}

async function checkout(client: ReturnType<typeof outageClient>, productId: string, email: string) {
  const page = await client.send(`/sandbox/payment/product/${productId}?country=DE`);
  const body = paidForm(hiddenFields(page.text), {
    token: `setup-${email.replace(/\W/g, '-')}`,
    email,
    firstName: 'A',
    lastName: 'B',
  });
  const res = await client.send(`/sandbox/payment/product/${productId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
}

/** Polls a process's /readyz until it says 200. */
export async function readyAgain(port: number) {
  for (let i = 0; ; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return;
    assert.ok(i < 2_000, `process on ${port} ready again`);
    await sleep(10);
  }
}

/** Each daily subscription has its first payment and one renewal per day moved: no more, no less. */
export async function subscriptionsRenewed(db: Kysely<Schema>, productId: string, days: number) {
  for (let i = 0; ; i++) {
    const rows = await db
      .selectFrom('transactions as t')
      .leftJoin('ledger_entries as e', (join) =>
        join.onRef('e.transaction_id', '=', 't.id').on('e.type', '=', 'SUBSCRIPTION_PAYMENT'),
      )
      .select((eb) => ['t.id', eb.fn.count<number>('e.id').as('payments')])
      .where('t.product_id', '=', productId)
      .groupBy('t.id')
      .execute();
    const payments = rows.map((r) => Number(r.payments));
    if (payments.length === SUBSCRIBERS && payments.every((n) => n === days + 1)) return;
    assert.ok(
      i < 300 && payments.every((n) => n <= days + 1),
      `every daily subscription renewed once a day: ${payments.join(', ')}`,
    );
    await sleep(100);
  }
}

/**
 * Waits for the worker to send every queued customer e-mail: each arrives once. Returns how many.
 * An e-mail the outage made wait (tried again at its next_try_at, or claimed and held until
 * lease_until) is given until 30 s after it falls due, and every other one 60 s: the worker keeps its
 * own schedule (a first retry a minute after a refusal), which a slow machine can push past a fixed wait.
 * It waits 2 minutes at most, so that an e-mail held longer (a claim whose answer the outage cut keeps
 * its 5-minute lease) fails here with every unsent e-mail's state, not as the test's timeout.
 */
export async function emailsSentOnce(db: Kysely<Schema>, inbox: SmtpInbox): Promise<number> {
  const started = Date.now();
  for (;;) {
    const unsent = await db
      .selectFrom('customer_emails')
      .select(['id', 'status', 'tries', 'next_try_at', 'lease_until', 'last_error'])
      .where('status', '!=', 'SENT')
      .execute();
    if (unsent.length === 0) break;
    const due = Math.max(
      ...unsent.map((e) => Math.max(Date.parse(e.next_try_at), Date.parse(e.lease_until ?? '') || 0)),
    );
    assert.ok(
      Date.now() < Math.min(started + 120_000, Math.max(started + 60_000, due + 30_000)),
      `every e-mail sent (${unsent.length} left): ${JSON.stringify(unsent)}`,
    );
    await sleep(100);
  }
  const queued = await db.selectFrom('customer_emails').select('id').execute();
  const ids = inbox.messages.map((m) => m.messageId);
  assert.equal(new Set(ids).size, ids.length, 'no e-mail arrived twice');
  assert.equal(ids.length, queued.length, 'every queued e-mail arrived');
  return ids.length;
}
