import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import autocannon from 'autocannon';
import { freePort, ServerProcess, within } from '../helpers/server-process.ts';

// better-sqlite3 12 aborted Node 24 when the garbage collector finalized a prepared statement
// (`Assertion failed: (env) != nullptr` in Statement::~Statement), mid-serve and at exit. This runs
// the real server on SQLite with collections forced every 25 ms while many different queries are
// prepared and dropped, then asks it to stop: it must serve throughout and exit 0.
test('on SQLite, the server survives garbage collection of prepared statements under load and exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opentill-gc-'));
  const pressure = new URL('../helpers/gc-pressure.mjs', import.meta.url).pathname;
  const server = new ServerProcess(await freePort(), dataDir, {
    nodeArgs: ['--expose-gc', '--import', pressure],
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    await within(server.started(), 'the start');
    const credential = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
    const headers = { authorization: credential, 'content-type': 'application/json' };
    const listed = (await (
      await fetch(`${server.url}/sandbox/v1/transactions/bob@example.com`, { headers })
    ).json()) as { id: string; productId: string }[];
    assert.ok(listed.length > 0);
    const [{ id, productId }] = listed as [{ id: string; productId: string }];

    // Reads, a list, the feed, the public price and a write: each prepares its own statements.
    const result = await autocannon({
      url: server.url,
      connections: 8,
      // A number of requests, not a duration: how fast a loaded machine serves them is not what this checks.
      amount: 400,
      requests: [
        { method: 'GET', path: `/sandbox/v1/transaction/${id}`, headers },
        { method: 'GET', path: '/sandbox/v1/transactions/bob@example.com', headers },
        { method: 'GET', path: '/sandbox/v1/changed-transactions?limit=5', headers },
        { method: 'GET', path: `/sandbox/public/v1/price/${productId}?country=DE` },
        { method: 'POST', path: `/sandbox/v1/transaction/${id}`, headers, body: JSON.stringify({ payload: 'gc' }) },
      ],
    });
    assert.ok(server.running, `the server died under load:\n${server.stderr}`);
    assert.equal(result.errors, 0, 'no connection errors');
    assert.equal(result.non2xx, 0, 'every answer was 2xx');
    assert.equal(result.requests.total, 400, `only ${result.requests.total} requests were served`);

    server.signal('SIGTERM');
    assert.deepEqual(await within(server.exited, 'the server to exit'), { code: 0, signal: null });
    assert.equal(server.stderr, '');
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
