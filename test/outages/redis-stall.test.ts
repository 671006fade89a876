import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';
import { PhaseRecorder } from '../helpers/outage-load.ts';
import { freePort, logLines, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * A Redis that accepts connections and never answers (issue 31): a Redis server of the test's own,
 * SIGSTOPped under load. The rate limits it counts fail open, so the API goes on at its usual pace:
 * p99 stays under 250 ms while Redis is stopped, nothing fails, the failure is logged once, and
 * once Redis answers again the limits count there again, under the configured key prefix.
 */
const postgres = (await storeKinds()).includes('postgres');
const redisServer = await new Promise<boolean>((resolve) => {
  const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  probe.on('error', () => resolve(false));
  probe.on('exit', (code) => resolve(code === 0));
});

describe(
  'a Redis that stops answering',
  { skip: !(postgres && redisServer) && 'needs PostgreSQL and redis-server' },
  () => {
    test(
      'SIGSTOPped under load: p99 stays under 250 ms, no request fails, one log line, and counting resumes after',
      { timeout: 90_000 },
      async (tc) => {
        const store = await freshDatabase('postgres');
        const dataDir = mkdtempSync(join(tmpdir(), 'opentill-redis-stall-'));
        const redisPort = await freePort();
        const redis = spawn(
          'redis-server',
          ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          { stdio: 'ignore' },
        );
        const env = {
          DATABASE_URL: store.url!,
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          REDIS_KEY_PREFIX: 'stall-test:',
          OPENTILL_SECRET: SERVER_SECRET,
          OPENTILL_DATA_DIR: dataDir,
          OPENTILL_DEMO: 'false',
          OPENTILL_WORKER: 'false',
          LOG_LEVEL: 'warn',
          METRICS_TOKEN: 'redis-stall-metrics-token-0123456789',
          // Counted, never reached: the test is about the counter's failure, not the limit.
          RATE_LIMIT_PER_ADDRESS: '10000000',
          RATE_LIMIT_PER_CREDENTIAL: '10000000',
        };
        let server: ServerProcess | undefined;
        const probe = new Redis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: null });
        probe.on('error', () => undefined);
        try {
          await within(probe.ping(), 'the test Redis to start');
          const made = await cli(
            ['vendor', 'create', '--name', 'Stall Ltd', '--email', 'owner@stall.test', '--json'],
            env,
          );
          succeeded(made);
          const authorization = parseJson(made).credentials.sandbox as string;
          server = new ServerProcess(await freePort(), dataDir, { env });
          await within(server.started(), 'the start');

          const redisUp = async () => {
            const text = await (
              await fetch(`${server!.url}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } })
            ).text();
            return /^opentill_redis_up (\d)$/m.exec(text)?.[1];
          };
          const recorder = new PhaseRecorder();
          let running = true;
          const reading = async () => {
            while (running) {
              const started = performance.now();
              const res = await fetch(`${server!.url}/sandbox/v1/transactions/someone%40stall.test`, {
                headers: { authorization },
              }).catch(() => undefined);
              await res?.arrayBuffer();
              recorder.record(res?.status ?? 0, performance.now() - started);
            }
          };
          const load = Promise.all(Array.from({ length: 8 }, reading));
          // Phases of 2, 4 and 2 seconds: the stopped one holds four of the second-long pauses after a failure.
          recorder.start('before');
          await sleep(2_000);
          recorder.start('stopped');
          redis.kill('SIGSTOP');
          await sleep(2_000);
          const during = await redisUp();
          await sleep(2_000);
          redis.kill('SIGCONT');
          recorder.start('after');
          await sleep(2_000);
          running = false;
          await load;
          assert.deepEqual(
            [during, await redisUp()],
            ['0', '1'],
            'opentill_redis_up says 0 while Redis is stopped, 1 after',
          );

          const [before, stopped, after] = ['before', 'stopped', 'after'].map((phase) => recorder.figures(phase));
          for (const f of [before!, stopped!, after!])
            assert.deepEqual(Object.keys(f.statuses), ['200'], `${f.phase}: every request answered 200`);
          assert.ok(stopped!.p99Ms < 250, `p99 while Redis is stopped: ${stopped!.p99Ms} ms`);
          // Not 100 ms per request either: after the first timeout, requests stop asking Redis until it answers again.
          const perSecond = (f: { answers: number }, seconds: number) => f.answers / seconds;
          assert.ok(
            perSecond(stopped!, 4) > perSecond(before!, 2) / 2,
            `the API went on at its pace while Redis was stopped (${stopped!.answers} answers in 4 s, ${before!.answers} in 2 s before)`,
          );
          assert.ok(server.running);
          const warnings = logLines(server.stdout).filter((l) => /Redis does not answer/.test(l.msg));
          assert.equal(warnings.length, 1, 'the failure is logged once');

          // Counting resumed in Redis, under the prefix the operator set (no "undefined" in any key).
          const keys = await probe.keys('*');
          assert.ok(
            keys.length > 0 && keys.every((k) => k.startsWith('stall-test:') && !k.includes('undefined')),
            keys.join(' '),
          );
          assert.ok(
            keys.some((k) => k.startsWith('stall-test:cred:')),
            `the per-credential limit counts in Redis: ${keys.join(' ')}`,
          );
          const counted = Number(await probe.get(keys.find((k) => k.startsWith('stall-test:cred:'))!));
          const again = await fetch(`${server.url}/sandbox/v1/transactions/someone%40stall.test`, {
            headers: { authorization },
          });
          assert.equal(again.status, 200);
          assert.ok(
            Number(await probe.get(keys.find((k) => k.startsWith('stall-test:cred:'))!)) > counted,
            'a request after the stall is counted',
          );
          tc.diagnostic(`\n${recorder.table()}`);
        } finally {
          redis.kill('SIGCONT');
          redis.kill('SIGKILL');
          probe.disconnect();
          await server?.kill();
          await store.drop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    );
  },
);
