/**
 * `npm run bench:scale` (issue 16): the same mixed load against opentill serving from one process
 * and from two (`opentill serve --processes 2`) on one PostgreSQL database, the two taking turns in
 * BENCH_ROUNDS rounds; prints requests/s and p99 of each and the ratio two / one. Each connection
 * cycles through reads by id (6 in 10), a customer's list by e-mail (2), an update-payload (1) and a
 * page of the changed-transactions feed (1). On SQLite there is one process only (it refuses more).
 * The load generator shares the machine: on 2 cores, two processes compete with it for the second.
 *
 * Environment: BENCH_ROWS (100,000), BENCH_SECONDS (10, over all rounds), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (40), BENCH_WARMUP (3); BENCH_SMOKE=1 for tiny sizes (test/bench/bench-smoke.test.ts).
 */
import type { Request } from 'autocannon';
import { measureInTurns, probe, row, shuffled, type LoadPlan, type Measured } from './load.ts';
import type { SeededStore } from './seed.ts';
import { startOpentill, type Server, type StoreLocation } from './servers.ts';
import { count, log, logMachine, setting } from './settings.ts';
import { runWriteBench } from './stores.ts';

const ROWS = setting('BENCH_ROWS', 100_000, 2_001);
const SECONDS = setting('BENCH_SECONDS', 10);
const WARMUP = setting('BENCH_WARMUP', 3);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 40, 4);
const ROUNDS = setting('BENCH_ROUNDS', 2);

function mixed(store: SeededStore): LoadPlan {
  const body = JSON.stringify({ payload: '{"seats":5,"plan":"scale"}' });
  const ids = shuffled(store.sampleIds);
  const emails = shuffled(store.sampleEmails);
  return {
    connections: CONNECTIONS,
    seconds: Math.max(1, Math.round(SECONDS / ROUNDS)),
    warmupSeconds: WARMUP,
    headers: { authorization: store.authorization, 'content-type': 'application/json' },
    idlePath: `/sandbox/v1/transaction/${store.sampleIds[0]}`,
    requests: () =>
      shuffled(
        Array.from({ length: 10 }, (_, n): Request => {
          const id = ids[Math.floor(Math.random() * ids.length)]!;
          if (n < 6) return { method: 'GET', path: `/sandbox/v1/transaction/${id}` };
          if (n < 8)
            return {
              method: 'GET',
              path: `/sandbox/v1/transactions/${encodeURIComponent(emails[n % emails.length]!)}`,
            };
          if (n < 9) return { method: 'POST', path: `/sandbox/v1/transaction/${id}`, body };
          return { method: 'GET', path: '/sandbox/v1/changed-transactions?limit=10' };
        }),
      ),
  };
}

async function measureStore(kind: string, location: StoreLocation, store: SeededStore): Promise<string[]> {
  if (kind !== 'postgres')
    return [`${kind}: one process only (SQLite is written by one process; --processes needs PostgreSQL)`];
  const servers: Server[] = [];
  try {
    const one = await startOpentill(location, { name: '1 process' });
    servers.push(one);
    const two = await startOpentill(location, { name: '2 processes', serveArgs: ['--processes', '2'] });
    servers.push(two);
    for (const server of servers)
      await probe(`${server.base}/sandbox/v1/transaction/${store.sampleIds[0]}`, {
        headers: { authorization: store.authorization },
      });
    log(`${kind} mixed load: warm-up ${WARMUP} s, then ${SECONDS} s per server in ${ROUNDS} rounds ...`);
    const [a, b] = (await measureInTurns([one, two], ROUNDS, () => mixed(store), servers)) as [Measured, Measured];
    return [
      row(`${kind} mixed`, a),
      row(`${kind} mixed`, b, { '1 process': a }),
      `${kind}: 2 processes / 1 process = ${(b.rps / a.rps).toFixed(2)}`,
    ];
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

logMachine(`opentill scale bench: ${count(ROWS)} transactions, ${CONNECTIONS} connections`);
await runWriteBench(
  'scale',
  ROWS,
  `mixed load on ${count(ROWS)} transactions, ${CONNECTIONS} connections, ${ROUNDS} rounds taking turns (rss: the serving process, or the cluster's primary)`,
  measureStore,
);
