import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { freePort, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * `opentill serve --processes N` (issue 16): N processes on one port and one PostgreSQL, one that
 * dies replaced, SIGTERM passed on to all; SQLite refuses more than one.
 */
/** The serving processes the cluster's primary forked (they run the same script). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent's pid; the command name (field 2) may hold spaces, so read after its ')'.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // Only opentill's own processes: run from the sources, tsx has an esbuild child too.
        return (
          Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid &&
          readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('opentill.js')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

const postgres = (await storeKinds()).includes('postgres');
const TOKEN = 'cluster-metrics-token-0123456789abcdef';

/** A GET on a connection of its own (no keep-alive), which node:cluster deals to the next process. */
function freshConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('opentill serve --processes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'opentill-cluster-'));
  let store: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  before(async () => {
    if (!postgres) return;
    store = await freshDatabase('postgres');
    await store.database.close();
  });
  after(async () => {
    await store?.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    'two processes serve one port; one killed is replaced; SIGTERM stops them all',
    { skip: !postgres && 'no PostgreSQL' },
    async () => {
      const server = new ServerProcess(await freePort(), dataDir, {
        args: ['--processes', '2'],
        env: { DATABASE_URL: store!.url!, LOG_LEVEL: 'warn', METRICS_TOKEN: TOKEN },
      });
      try {
        await within(server.started(), 'the cluster start');
        assert.match(server.stdout, /store: PostgreSQL, 2 processes/);
        assert.equal(server.stdout.match(/^opentill is listening/gm)?.length, 1, 'one banner, from the primary');
        const credential = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
        const read = () =>
          fetch(`${server.url}/sandbox/v1/transactions/bob@example.com`, {
            headers: { authorization: credential },
          }).then((r) => r.status);
        const first = childrenOf(server.pid);
        assert.equal(first.length, 2, `two serving processes: ${first.join(', ')}`);
        assert.deepEqual(new Set(await Promise.all(Array.from({ length: 40 }, read))), new Set([200]));

        // A connection each, so that both processes serve them; /metrics, answered by one, counts all.
        const statuses = await Promise.all(Array.from({ length: 30 }, () => freshConnection(`${server.url}/healthz`)));
        assert.deepEqual(new Set(statuses), new Set([200]));
        const metrics = await (
          await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).text();
        const healthz = metrics.match(
          /^opentill_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} (\d+)$/m,
        );
        assert.equal(Number(healthz?.[1]), 30, "the two processes' counts, summed");
        assert.equal(
          metrics.match(/^opentill_database_up /gm)?.length,
          1,
          'the database figures once, not once per process',
        );

        process.kill(first[0]!, 'SIGKILL');
        let now = childrenOf(server.pid);
        for (let i = 0; i < 100 && !(now.length === 2 && !now.includes(first[0]!)); i++) {
          await sleep(100);
          now = childrenOf(server.pid);
        }
        assert.equal(now.length, 2, `replaced: ${now.join(', ')}`);
        assert.ok(!now.includes(first[0]!));
        // The primary says so before it forks, but the pipe may be read a turn after /proc shows the new process.
        const said = new RegExp(`process ${first[0]} exited \\(signal SIGKILL\\); starting another`);
        for (let i = 0; i < 50 && !said.test(server.stderr); i++) await sleep(100);
        assert.match(server.stderr, said);
        // The replacement may still be starting: the survivor answers meanwhile, and then both do.
        for (let i = 0; i < 50 && (await read()) !== 200; i++) await sleep(100);
        assert.deepEqual(new Set(await Promise.all(Array.from({ length: 40 }, read))), new Set([200]));

        server.signal('SIGTERM');
        assert.deepEqual(await within(server.exited, 'the cluster stop'), { code: 0, signal: null });
        assert.deepEqual(
          now.filter((pid) => {
            try {
              process.kill(pid, 0);
              return true;
            } catch {
              return false;
            }
          }),
          [],
          'no process left behind',
        );
      } finally {
        await server.kill();
      }
    },
  );

  test('on SQLite more than one process is refused, saying why', async () => {
    const server = new ServerProcess(await freePort(), dataDir, { args: ['--processes', '2'] });
    const exit = await within(server.exited, 'the refusal');
    assert.equal(exit.code, 1);
    assert.match(
      server.stderr,
      /SQLite is written by one process: --processes 2 needs PostgreSQL \(set DATABASE_URL\)/,
    );
  });
});
