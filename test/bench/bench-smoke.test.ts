import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { storeKinds } from '../../support/databases.ts';

/**
 * Every bench runs in its smoke mode (BENCH_SMOKE=1: tiny sizes, a few requests), so a change that
 * breaks one is noticed by `npm test` and not by the next person measuring. Each must exit 0 and print
 * every row of its figures with numbers in it; the figures themselves are not judged here (a bench
 * prints its ratios against a baseline measured in the same run; a test never times anything).
 */
const run = promisify(execFile);
const stores = await storeKinds();

async function bench(file: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BENCH_')));
  const { stdout } = await run(process.execPath, [file], {
    env: { ...inherited, BENCH_SMOKE: '1', BENCH_STORES: stores.join(','), ...env },
    timeout: 120_000,
    maxBuffer: 4 * 1024 * 1024,
  });
  return stdout;
}

const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A row printed by bench/load.ts's `row`: rate, p50, p99, resident size, and the ratio to each reference. */
function assertRow(stdout: string, label: string, server: string, references: string[] = []) {
  const ratios = references.map((name) => String.raw`.*?${NUMBER} of ${name}`).join('');
  const pattern = new RegExp(
    String.raw`^${escape(label)}\s+${escape(server)}\s+${NUMBER} req/s\s+p50\s+${NUMBER} ms\s+p99\s+${NUMBER} ms\s+rss\s+${NUMBER} MiB${ratios}`,
    'm',
  );
  assert.match(stdout, pattern, `${label} / ${server}`);
}

// Two at a time: each spends most of its time starting servers, browsers and databases.
describe('benches in their smoke mode complete and print their figures', { concurrency: 2 }, () => {
  test('bench (reads): each read on each store by bare, lean and opentill, with ratios and resident sizes', async () => {
    const stdout = await bench('bench/transaction-read.ts');
    for (const store of stores) {
      for (const read of ['GET /v1/transaction/{id}', 'GET /v1/transactions/{email}', 'GET /v1/changed-transactions']) {
        assertRow(stdout, `${store} ${read}`, 'bare node:http');
        assertRow(stdout, `${store} ${read}`, 'lean server', ['bare']);
        assertRow(stdout, `${store} ${read}`, 'opentill', ['bare', 'lean']);
      }
      assertRow(stdout, `${store} GET /v1/transaction/{id}`, 'lean lookups', ['bare']);
      assert.match(
        stdout,
        new RegExp(String.raw`^${store}\s+opentill ${NUMBER} MiB\s+lean ${NUMBER} MiB\s+bare ${NUMBER} MiB`, 'm'),
      );
      // Idle, after the start: opentill and lean.
      assert.match(stdout, new RegExp(String.raw`^${store}\s+opentill ${NUMBER} MiB\s+lean ${NUMBER} MiB$`, 'm'));
      // Issue 38's targets, each judged with its figure.
      for (const [read, share] of [
        ['GET /v1/transaction/{id}', '0.9'],
        ['GET /v1/transactions/{email}', '0.9'],
        ['GET /v1/changed-transactions', '1.0'],
      ] as const)
        assert.match(
          stdout,
          new RegExp(
            String.raw`^target: ${store} ${escape(read)} at >= ${share} of lean: (met|MISSED) \(${NUMBER}\)$`,
            'm',
          ),
        );
      assert.match(
        stdout,
        new RegExp(
          String.raw`^target: ${store} peak resident size at most 1.3 times lean's: (met|MISSED) \(${NUMBER}\)$`,
          'm',
        ),
      );
      assert.match(
        stdout,
        new RegExp(
          String.raw`^target: ${store} idle resident size below 150 MiB: (met|MISSED) \(${NUMBER} MiB\)$`,
          'm',
        ),
      );
    }
  });

  test('bench:write: update-payload and refund on each store by lean and opentill, with the ratio', async () => {
    const stdout = await bench('bench/write.ts');
    for (const store of stores) {
      for (const write of ['update-payload', 'refund']) {
        assertRow(stdout, `${store} ${write}`, 'lean server');
        assertRow(stdout, `${store} ${write}`, 'opentill', ['lean']);
      }
    }
    assert.match(stdout, /^sqlite: journal_mode=wal, synchronous=FULL/m);
  });

  test('bench:purchase: hosted checkout purchases on each store, beside bare', async () => {
    const stdout = await bench('bench/purchase.ts');
    for (const store of stores) {
      assertRow(stdout, `${store} POST /payment/product/{id}`, 'bare node:http');
      assertRow(stdout, `${store} POST /payment/product/{id}`, 'opentill', ['bare']);
    }
  });

  test(
    'bench:scale: the mixed load from one and from two processes on PostgreSQL, with the ratio',
    { skip: !stores.includes('postgres') && 'no PostgreSQL' },
    async () => {
      const stdout = await bench('bench/scale.ts', { BENCH_STORES: 'postgres' });
      assertRow(stdout, 'postgres mixed', '1 process');
      assertRow(stdout, 'postgres mixed', '2 processes', ['1 process']);
      assert.match(stdout, new RegExp(String.raw`^postgres: 2 processes / 1 process = ${NUMBER}$`, 'm'));
    },
  );

  test('bench:billing: the engine and the raw ceiling on each store, with the ratio and the time taken', async () => {
    const stdout = await bench('bench/billing.ts');
    for (const store of stores) {
      assert.match(
        stdout,
        new RegExp(
          String.raw`^${store}\s+engine\s+${NUMBER} renewals/s\s+raw ceiling\s+${NUMBER} rows/s\s+ratio ${NUMBER}.*engine ${NUMBER} renewals in ${NUMBER} s`,
          'm',
        ),
      );
    }
  });

  // SQLite only: the catch-up is slow to smoke on PostgreSQL, and its behaviour on both stores is
  // test/billing/sandbox-clock-isolation.test.ts; this proves the bench script still runs.
  test('bench:clock-isolation: the catch-up and the other vendor read latencies, moving and quiet', async () => {
    const stdout = await bench('bench/clock-isolation.ts', { BENCH_STORES: 'sqlite' });
    assert.match(
      stdout,
      new RegExp(
        String.raw`^sqlite: 1 years of a daily subscription \(${NUMBER} renewals\) caught up in ${NUMBER} s`,
        'm',
      ),
    );
    for (const run of ['while catching up', 'nothing moving'])
      assert.match(
        stdout,
        new RegExp(String.raw`${run}:\s+${NUMBER} reads, p50 ${NUMBER} ms, p99 ${NUMBER} ms, max ${NUMBER} ms`),
      );
    assert.match(stdout, new RegExp(String.raw`p99 ratio ${NUMBER}`));
  });

  test('bench:books: a payout statement over the whole ledger on each store, against a plain sum, with the ratio, and an OSS return', async () => {
    const stdout = await bench('bench/books.ts');
    for (const store of stores)
      assert.match(
        stdout,
        new RegExp(
          String.raw`^${store} OSS report of \d{4}-Q[1-4] \(${NUMBER} of the ledger's ${NUMBER} entries, ${NUMBER} rows\)\s+${NUMBER} s \(target <= 5 s: (met|MISSED)\)$`,
          'm',
        ),
      );
    for (const store of stores)
      assert.match(
        stdout,
        new RegExp(
          String.raw`^${store} statement of ${NUMBER} entries\s+${NUMBER} s \(target <= 5 s: (met|MISSED)\)\s+reference sum ${NUMBER} s\s+statement / reference ${NUMBER}$`,
          'm',
        ),
      );
  });

  test('bench:webhooks: outbox deliveries per second on each store, against signed POSTs alone, with the ratio', async () => {
    const stdout = await bench('bench/webhooks.ts');
    for (const store of stores)
      assert.match(
        stdout,
        new RegExp(
          String.raw`^${store}\s+${NUMBER} events\s+outbox ${NUMBER} deliveries/s\s+reference ${NUMBER} signed POSTs/s\s+outbox / reference ${NUMBER}$`,
          'm',
        ),
      );
  });

  test('bench:widget: DOMContentLoaded with and without the script, when the price shows, and the ratio', async () => {
    const stdout = await bench('bench/widget-price.ts');
    assert.match(
      stdout,
      new RegExp(String.raw`page without the script\s+DOMContentLoaded\s+median ${NUMBER} ms\s+p95 ${NUMBER} ms`),
    );
    assert.match(
      stdout,
      new RegExp(String.raw`page with the script\s+DOMContentLoaded\s+median ${NUMBER} ms\s+p95 ${NUMBER} ms`),
    );
    assert.match(stdout, new RegExp(String.raw`price shown\s+median ${NUMBER} ms\s+p95 ${NUMBER} ms`));
    assert.match(stdout, new RegExp(String.raw`price shown / baseline DOMContentLoaded \(median\): ${NUMBER}x`));
  });

  test('bench:checkout: the page size, first paint, baseline and ratio', async () => {
    const stdout = await bench('bench/checkout-paint.ts');
    assert.match(stdout, /checkout HTML: \d+ bytes/);
    assert.match(stdout, /checkout first paint: median [\d.]+ ms/);
    assert.match(stdout, /ratio checkout\/baseline first paint: [\d.]+/);
    assert.match(stdout, /machine: \d+ cores, load average [\d.]+/);
    assert.match(stdout, /target first paint median <= 120 ms, p95 <= 200 ms: (met|MISSED)/);
  });
});
