/**
 * `npm run bench:write`: two of the API's writes, durable, on SQLite and on PostgreSQL:
 *   - update-payload   POST /sandbox/v1/transaction/{id} {"payload": ...}, random IDs out of ~1000
 *   - refund           POST /sandbox/v1/refund-transaction/{id}, each request a transaction not yet refunded
 * through opentill (`opentill serve`, the sandbox gateway) and through the lean reference
 * (bench/lean-server.ts), which issues the statements opentill ends up issuing for the same request
 * as prepared statements, committing where opentill commits: update-payload in one database
 * transaction; a refund in three, because moving money safely takes them (the attempt is committed
 * before the gateway is asked, the gateway records the refund, the outcome is booked: docs/decisions.md,
 * money safety), and a reference that skipped them would measure a refund nobody may run. Both commit
 * durably: SQLite in WAL with synchronous=FULL (opentill's setting), PostgreSQL as configured (its
 * fsync settings are printed); nothing is relaxed for the bench.
 *
 * Prints requests/s, p50 and p99 of each, and opentill / lean (target, issue 15: 0.70 or better).
 * The store is a writable copy of the seeded SQLite file (bench/seed.ts) or a fresh PostgreSQL
 * database with the same rows, shared by the two servers: they take turns in BENCH_ROUNDS rounds,
 * first one then the other first, so that a store growing with the writes (the WAL, dead rows) weighs
 * on both alike. Requests/s are over all rounds; p50 and p99 the worse round's.
 *
 * Environment:
 *   BENCH_ROWS=100000      transactions in the store (each refund takes one of them)
 *   BENCH_SECONDS=10       measured seconds of update-payload per server, over all rounds
 *   BENCH_REFUNDS=2000     measured refunds per server, over all rounds
 *   BENCH_ROUNDS=2
 *   BENCH_WARMUP=3         warm-up seconds per server and write, not measured
 *   BENCH_CONNECTIONS=20   concurrent keep-alive connections
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1          tiny sizes, a few requests each (test/bench/bench-smoke.test.ts)
 */
import type { Request } from 'autocannon';
import SQLite from 'better-sqlite3';
import { measureInTurns, probe, row, shuffled, type LoadPlan, type Measured } from './load.ts';
import type { SeededStore } from './seed.ts';
import { startLean, startOpentill, type Server } from './servers.ts';
import { count, log, logMachine, setting, SMOKE } from './settings.ts';
import { runWriteBench } from './stores.ts';

const ROWS = setting('BENCH_ROWS', 100_000, 2_001);
const SECONDS = setting('BENCH_SECONDS', 10);
const REFUNDS = setting('BENCH_REFUNDS', 2000);
const WARMUP = setting('BENCH_WARMUP', 3);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 20, 4);
const ROUNDS = setting('BENCH_ROUNDS', 2);
const TARGET = 0.7;

const base = (store: SeededStore, extra: Record<string, string> = {}): Omit<LoadPlan, 'requests'> => ({
  connections: CONNECTIONS,
  seconds: Math.max(1, Math.round(SECONDS / ROUNDS)),
  warmupSeconds: WARMUP,
  headers: { authorization: store.authorization, ...extra },
  idlePath: `/sandbox/v1/transaction/${store.sampleIds[0]}`,
});

function updatePayload(store: SeededStore): LoadPlan {
  const body = JSON.stringify({ payload: '{"seats":5,"plan":"bench"}' });
  return {
    ...base(store, { 'content-type': 'application/json' }),
    requests: () =>
      shuffled(store.sampleIds).map((id) => ({ method: 'POST', path: `/sandbox/v1/transaction/${id}`, body })),
  };
}

/** Each request refunds a transaction taken out of `ids`: a refund is made once, in whichever round. */
function refunds(store: SeededStore, ids: string[]): LoadPlan {
  // Running out answers 404, which the run reports.
  const request = (): Request => ({
    method: 'POST',
    path: `/sandbox/v1/refund-transaction/${ids.pop() ?? 'TC-TR_NONE_LEFT'}`,
  });
  return {
    ...base(store),
    amount: Math.ceil(REFUNDS / ROUNDS),
    requests: () => [{ ...request(), setupRequest: (r) => ({ ...r, path: request().path }) }],
  };
}

/** The transactions there are to refund, shuffled and dealt out to the two servers. */
function refundable(store: SeededStore): [string[], string[]] {
  const db = new SQLite(store.file, { readonly: true });
  const ids = db
    .prepare(`SELECT id FROM transactions WHERE status = 'ONE_TIME_PAYMENT_STATUS_PAID'`)
    .pluck()
    .all() as string[];
  db.close();
  const dealt = shuffled(ids);
  return [dealt.filter((_, i) => i % 2 === 0), dealt.filter((_, i) => i % 2 === 1)];
}

async function measureStore(
  kind: string,
  location: Parameters<typeof startLean>[0],
  store: SeededStore,
): Promise<string[]> {
  const servers: Server[] = [];
  try {
    const [lean, opentill] = await Promise.all([startLean(location), startOpentill(location)]);
    servers.push(lean, opentill);
    const [forLean, forOpentill] = refundable(store);
    const ids = new Map<Server, string[]>([
      [lean, forLean],
      [opentill, forOpentill],
    ]);
    // One of each write answers as it should before any load.
    for (const server of servers) {
      const auth = { authorization: store.authorization };
      await probe(`${server.base}/sandbox/v1/transaction/${store.sampleIds[0]}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"payload":"probe"}',
      });
      await probe(`${server.base}/sandbox/v1/refund-transaction/${ids.get(server)!.pop()}`, {
        method: 'POST',
        headers: auth,
      });
    }
    const rows: string[] = [];
    const writes: [string, (server: Server) => LoadPlan][] = [
      ['update-payload', () => updatePayload(store)],
      ['refund', (server) => refunds(store, ids.get(server)!)],
    ];
    for (const [name, plan] of writes) {
      const size = SMOKE ? 'a few requests' : name === 'refund' ? `${count(REFUNDS)} refunds` : `${SECONDS} s`;
      log(`${kind} ${name}: warm-up ${WARMUP} s, then ${size} per server in ${ROUNDS} rounds ...`);
      const [l, o] = (await measureInTurns([lean, opentill], ROUNDS, plan, servers)) as [Measured, Measured];
      const ratio = o.rps / l.rps;
      rows.push(row(`${kind} ${name}`, l), row(`${kind} ${name}`, o, { lean: l }));
      rows.push(
        `target: ${kind} ${name} opentill at >= ${TARGET.toFixed(2)} of lean: ${ratio >= TARGET ? 'met' : 'NOT met'} (${ratio.toFixed(3)})`,
      );
    }
    return rows;
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

logMachine(`opentill write bench: ${count(ROWS)} transactions, ${CONNECTIONS} connections`);
await runWriteBench(
  'write',
  ROWS,
  `durable writes on ${count(ROWS)} transactions, ${CONNECTIONS} connections, ${ROUNDS} rounds taking turns (p50, p99: the worse round's)`,
  measureStore,
);
