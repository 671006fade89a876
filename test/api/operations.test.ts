import assert from 'node:assert/strict';
import { runWorkerOnce } from '../../src/worker.ts';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { seedDueSubscriptions } from '../../support/due-subscriptions.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/** /healthz, /readyz and /metrics: what an operator's probes and Prometheus read (issue 16). */
const TOKEN = 'metrics-token-for-tests-0123456789abcdef';

const metric = (text: string, name: string, labels = ''): number | undefined => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

for (const kind of await storeKinds()) {
  describe(`health, readiness and metrics (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { METRICS_TOKEN: TOKEN } });
    });
    after(() => t.close());

    const get = (path: string, authorization?: string) =>
      fetch(`${t.url}${path}`, { headers: authorization ? { authorization } : {} });

    test('/healthz says the process answers; /readyz that the database answers and the schema is current', async () => {
      const health = await get('/healthz');
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { status: string }).status, 'ok');
      const ready = await get('/readyz');
      assert.equal(ready.status, 200);
      const body = (await ready.json()) as any;
      assert.equal(body.status, 'ready');
      assert.equal(body.database, 'ok');
      assert.deepEqual(body.pendingMigrations, []);
      assert.equal(body.payments.sandbox.processor, 'SANDBOX');
    });

    test('/readyz answers 503 while a migration of this version has not run, naming it', async () => {
      const db = t.services.database.kysely;
      const [last] = await db
        .selectFrom('kysely_migration' as never)
        .select(sql<string>`name`.as('name'))
        .orderBy(sql`name`, 'desc')
        .limit(1)
        .execute();
      await db
        .deleteFrom('kysely_migration' as never)
        .where(sql`name`, '=', last!.name)
        .execute();
      try {
        const res = await get('/readyz');
        assert.equal(res.status, 503);
        const body = (await res.json()) as any;
        assert.equal(body.error, 'SERVICE_UNAVAILABLE');
        assert.match(body.message, /lacks 1 migration/);
        assert.deepEqual(body.pendingMigrations, [last!.name]);
        assert.equal((await get('/healthz')).status, 200, 'alive all the same');
      } finally {
        await db
          .insertInto('kysely_migration' as never)
          .values({ name: last!.name, timestamp: new Date().toISOString() } as never)
          .execute();
      }
      assert.equal((await get('/readyz')).status, 200);
    });

    test('/metrics refuses a request without the bearer token, and says how to send it', async () => {
      for (const authorization of [undefined, TOKEN, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`]) {
        const res = await get('/metrics', authorization);
        assert.equal(res.status, 401, String(authorization));
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
        const body = (await res.json()) as { error: string; message: string };
        assert.equal(body.error, 'UNAUTHORIZED');
        assert.match(body.message, /Authorization: Bearer/);
      }
    });

    test('/metrics counts requests by route pattern and status, never by path, and the work waiting in the database', async () => {
      const v = await t.newVendor();
      await v.api('/v1/transactions/someone.secret%40example.com');
      const miss = await v.api('/v1/transaction/TC-TR_none');
      await fetch(`${t.url}/no/such/path/with-a-token-abc123`);
      const { vendorId } = await seedDueSubscriptions(t.services.database, 3);

      const res = await get('/metrics', `Bearer ${TOKEN}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      assert.equal(
        metric(
          text,
          'opentill_http_request_duration_seconds_count',
          '{method="GET",route="/sandbox/v1/transactions/:email",status="200"}',
        ),
        1,
      );
      assert.equal(
        metric(
          text,
          'opentill_http_request_duration_seconds_count',
          `{method="GET",route="/sandbox/v1/transaction/:transactionId",status="${miss.status}"}`,
        ),
        1,
      );
      assert.ok(
        (metric(
          text,
          'opentill_http_request_duration_seconds_count',
          '{method="GET",route="unmatched",status="404"}',
        ) ?? 0) >= 1,
      );
      for (const secret of ['someone', 'with-a-token', 'TC-TR_none', TOKEN])
        assert.ok(!text.includes(secret), `${secret} is in no label`);
      assert.equal(metric(text, 'opentill_billing_due'), 3);
      assert.equal(metric(text, 'opentill_charge_attempts_open'), 0);
      assert.equal(metric(text, 'opentill_processor_events_waiting'), 0);
      assert.equal(metric(text, 'opentill_customer_emails_waiting'), 0, 'without SMTP nothing is queued');
      assert.equal(metric(text, 'opentill_database_up'), 1);
      assert.ok(metric(text, 'opentill_process_resident_memory_bytes')! > 0, "the process's own figures");
      if (kind === 'postgres')
        assert.ok(metric(text, 'opentill_database_connections', '{state="in_use"}') !== undefined);
      else assert.ok(!text.includes('opentill_database_connections{'), 'SQLite has no pool');

      // What the billing worker did, as `opentill serve` hands each run's report to the counters.
      const report = await runWorkerOnce(t.services);
      assert.equal(report.renewed, 3, vendorId);
      t.app.metrics!.observeBilling(report);
      const after = await (await get('/metrics', `Bearer ${TOKEN}`)).text();
      assert.equal(metric(after, 'opentill_billing_subscriptions_total', '{outcome="renewed"}'), 3);
      assert.equal(metric(after, 'opentill_billing_due'), 0);
    });
  });
}

describe('a database that does not answer', () => {
  test('/readyz answers 503 saying so, and /healthz 200: the process itself is fine', async () => {
    const t = await startTestApp('sqlite');
    try {
      await t.services.database.close();
      const ready = await fetch(`${t.url}/readyz`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { error: string; message: string; database: string };
      assert.deepEqual([body.error, body.database], ['SERVICE_UNAVAILABLE', 'unreachable']);
      assert.match(body.message, /not reachable/);
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    } finally {
      await t.close();
    }
  });
});

describe('metrics off', () => {
  test('without METRICS_TOKEN /metrics is not there; a short token is refused at start', async () => {
    const t = await startTestApp('sqlite');
    try {
      assert.equal((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
      assert.equal(t.app.metrics, undefined);
    } finally {
      await t.close();
    }
    assert.throws(
      () => loadConfig({ OPENTILL_SECRET: 'x'.repeat(40), METRICS_TOKEN: 'short' }),
      /METRICS_TOKEN must be at least 24 characters/,
    );
  });
});
