/**
 * `npm run bench`: the API's three reads on a store of BENCH_ROWS transactions (default 1,000,000),
 * on SQLite and on PostgreSQL:
 *   - GET /sandbox/v1/transaction/{id}       one transaction with its ledger (random IDs out of ~1000 seeded ones)
 *   - GET /sandbox/v1/transactions/{email}   a customer's 20 transactions (random customers out of ~1000)
 *   - GET /sandbox/v1/changed-transactions   the feed, with BENCH_PENDING (1,000) changes waiting among all rows
 * each answered by three servers in the same run, taking turns in BENCH_ROUNDS rounds:
 *   - bare node:http answering opentill's exact bytes for that read (bench/bare-server.ts): the ceiling;
 *   - the lean reference, Fastify with prepared statements doing the same lookups (bench/lean-server.ts);
 *   - opentill as `opentill serve` runs it;
 * and, for the read by id, a fourth: the lean server doing only the credential check and the two
 * lookups, answering the kept bytes ("lean lookups"): the floor of any Fastify server reading this
 * store for that request, which the target is to be judged against.
 * Prints requests/s, p50 and p99 latency of each, opentill's ratio to bare and to lean, lean's ratio to
 * bare, and each server's resident set size under the load and, opentill's and lean's, idle after their
 * start. Targets (issue 38), judged on each store: the reads by id and by e-mail at >= 0.9 of lean and
 * the feed at >= 1.0; opentill's peak resident size at most 1.3 times lean's; idle below 150 MiB.
 *
 * Every server is a child process of its own on 127.0.0.1, so its resident size (VmRSS in
 * /proc/<pid>/status, sampled every 200 ms during the measured run; the peak is printed) is its own and
 * not the load generator's; on PostgreSQL the database server's memory is not in it. This process only
 * generates the load (autocannon). The SQLite store is seeded once and cached in the temporary
 * directory (bench/seed.ts); PostgreSQL gets a fresh database holding the same rows, dropped at the end.
 *
 * Environment:
 *   BENCH_ROWS=1000000     transactions in the store
 *   BENCH_PENDING=1000     of them waiting in the changed-transactions feed
 *   BENCH_SECONDS=12       measured seconds per server and read, over all rounds
 *   BENCH_ROUNDS=3         rounds in which the three servers take turns, each round in another order
 *   BENCH_WARMUP=3         warm-up seconds per server and read, not measured
 *   BENCH_CONNECTIONS=20   concurrent keep-alive connections
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_FRESH=1          reseed even if a cached store exists
 *   BENCH_PROFILE=<dir>    run the opentill child with --cpu-prof, writing the profile into <dir>, and the
 *                          lean server likewise into <dir>/lean
 *   BENCH_READS=id,email,feed   the reads measured (all three by default): one alone, to profile it
 *   BENCH_SMOKE=1          tiny sizes, a few requests each (test/bench/bench-smoke.test.ts)
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  measureInTurns,
  mib,
  probe,
  row,
  shuffled,
  writeAnswers,
  type Answer,
  type LoadPlan,
  type Measured,
} from './load.ts';
import { PER_CUSTOMER, seededStore, type SeededStore } from './seed.ts';
import { residentSize, startBare, startLean, startOpentill, type Server, type StoreLocation } from './servers.ts';
import { benchStore } from './stores.ts';
import { count, loadAverage, log, logMachine, setting, SMOKE, storesToMeasure } from './settings.ts';

const ROWS = setting('BENCH_ROWS', 1_000_000, 2_001);
const PENDING = setting('BENCH_PENDING', 1000, 50);
const SECONDS = setting('BENCH_SECONDS', 12);
const WARMUP = setting('BENCH_WARMUP', 3);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 20, 4);
/** How long after its start a server's idle size is read: none in a smoke run. */
const IDLE_WAIT_MS = SMOKE ? 0 : 2000;
const ROUNDS = setting('BENCH_ROUNDS', 3, 1);
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined;
/** Opentill's peak resident size under the read load, at most this times lean's; and idle, below this. */
const TARGET_PEAK_OF_LEAN = 1.3;
const TARGET_IDLE_MIB = 150;

interface Read {
  label: string;
  /** Opentill's requests per second, at least this share of lean's (issue 38). */
  target: number;
  prefix: string;
  paths: (store: SeededStore) => string[];
  /** Checks opentill's answer is the one meant (the right rows, as many as seeded). */
  check: (json: unknown, answer: Answer, store: SeededStore) => void;
  /** Headers the bare server repeats besides content-type. */
  headers?: string[];
}

const READS: Read[] = [
  {
    label: 'GET /v1/transaction/{id}',
    target: 0.9,
    prefix: '/sandbox/v1/transaction/',
    paths: (s) => s.sampleIds.map((id) => `/sandbox/v1/transaction/${id}`),
    check: (json, _a, s) =>
      assert.deepEqual(
        [(json as { id: string }).id, (json as { entries: unknown[] }).entries.length],
        [s.sampleIds[0], 1],
      ),
  },
  {
    label: 'GET /v1/transactions/{email}',
    target: 0.9,
    prefix: '/sandbox/v1/transactions/',
    paths: (s) => s.sampleEmails.map((email) => `/sandbox/v1/transactions/${encodeURIComponent(email)}`),
    check: (json) => assert.equal((json as unknown[]).length, PER_CUSTOMER),
  },
  {
    label: 'GET /v1/changed-transactions',
    target: 1.0,
    prefix: '/sandbox/v1/changed-transactions',
    paths: () => ['/sandbox/v1/changed-transactions'],
    check: (json, answer, s) =>
      assert.deepEqual(
        [(json as unknown[]).length, answer.headers.get('x-more-changes')],
        [Math.min(1000, s.pending), String(s.pending > 1000)],
      ),
    headers: ['x-more-changes'],
  },
];

/** BENCH_READS: the reads measured, by their short names (id, email, feed), in READS' order. */
const READ_NAMES = ['id', 'email', 'feed'] as const;
const chosenReads = (process.env.BENCH_READS ?? READ_NAMES.join(',')).split(',').map((name) => name.trim());
for (const name of chosenReads)
  if (!(READ_NAMES as readonly string[]).includes(name))
    throw new Error(`BENCH_READS: unknown read "${name}" (known: ${READ_NAMES.join(', ')})`);
const MEASURED = READS.filter((_, i) => chosenReads.includes(READ_NAMES[i]!));

const plan = (paths: string[], store: SeededStore): LoadPlan => ({
  connections: CONNECTIONS,
  seconds: SECONDS,
  warmupSeconds: WARMUP,
  headers: { authorization: store.authorization },
  idlePath: READS[0]!.paths(store)[0]!,
  // Every connection walks the same sampled paths, each in its own random order.
  requests: () => shuffled(paths).map((path) => ({ method: 'GET', path })),
});

/** Measures bare, lean and opentill on one store, each read in turn; returns the printed rows. */
async function measureStore(
  kind: string,
  location: StoreLocation,
  store: SeededStore,
  workDir: string,
): Promise<{ rows: string[]; rss: Measured[]; idle: string; idleBytes: number | undefined }> {
  const servers: Server[] = [];
  try {
    const [opentill, lean] = await Promise.all([
      startOpentill(location, { profileDir: PROFILE_DIR }),
      startLean(location, undefined, PROFILE_DIR && join(PROFILE_DIR, 'lean')),
    ]);
    servers.push(opentill, lean);
    // Idle: a moment after the start, before any request (issue 38: opentill below 150 MiB).
    await new Promise((resolvePromise) => setTimeout(resolvePromise, IDLE_WAIT_MS));
    const idleBytes = residentSize(opentill.pid);
    const idle = `${kind.padEnd(8)} opentill ${mib(idleBytes)}   lean ${mib(residentSize(lean.pid))}`;
    const auth = { authorization: store.authorization };
    const answers: Answer[] = [];
    for (const read of READS) {
      const path = read.paths(store)[0]!;
      const answer = await probe(opentill.base + path, { headers: auth });
      const json = JSON.parse(answer.body.toString()) as unknown;
      read.check(json, answer, store);
      assert.deepEqual(
        JSON.parse((await probe(lean.base + path, { headers: auth })).body.toString()),
        json,
        `the lean server answers ${read.label} as opentill does`,
      );
      answers.push(answer);
      log(
        `${kind} ${read.label}: ${answer.body.length} bytes of ${answer.headers.get('content-type')}, one request alone in ${answer.ms.toFixed(0)} ms`,
      );
    }
    const answersFile = join(workDir, `answers-${kind}.json`);
    writeAnswers(
      answersFile,
      READS.map((read, i) => ({ prefix: read.prefix, answer: answers[i]!, headers: read.headers })),
    );
    const [bare, lookups] = await Promise.all([startBare(answersFile), startLean(location, answersFile)]);
    servers.push(bare, lookups);
    for (const [i, read] of READS.entries()) {
      const bareAnswer = await probe(bare.base + read.paths(store)[0]!, { headers: auth });
      assert.ok(
        bareAnswer.body.equals(answers[i]!.body),
        `the bare server answers ${read.label} with opentill's bytes`,
      );
    }
    const byId = READS[0]!.paths(store)[0]!;
    assert.ok(
      (await probe(lookups.base + byId, { headers: auth })).body.equals(answers[0]!.body),
      "the lookups-only server answers opentill's bytes",
    );
    // An unknown id must be a 404: the lookups-only server does look up.
    await probe(lookups.base + '/sandbox/v1/transaction/nope', { headers: auth, expect: 404 });

    const rows: string[] = [];
    const measured: Measured[] = [];
    for (const read of MEASURED) {
      const load = plan(read.paths(store), store);
      log(
        `${kind} ${read.label}: ${SMOKE ? 'a few requests' : `warm-up ${WARMUP} s, then ${SECONDS} s in ${ROUNDS} rounds`} with ${CONNECTIONS} connections per server ...`,
      );
      const roundLoad = { ...load, seconds: Math.max(1, Math.round(SECONDS / ROUNDS)) };
      const withFloor = read === READS[0];
      const all = await measureInTurns(
        withFloor ? [bare, lean, lookups, opentill] : [bare, lean, opentill],
        ROUNDS,
        () => roundLoad,
        servers,
      );
      const [b, l, o] = [all[0]!, all[1]!, all.at(-1)!];
      const f = withFloor ? all[2] : undefined;
      const label = `${kind} ${read.label}`;
      rows.push(
        row(label, b),
        row(label, l, { bare: b }),
        ...(f ? [row(label, f, { bare: b })] : []),
        row(label, o, { bare: b, lean: l }),
      );
      rows.push(
        judged(`${label} at >= ${read.target.toFixed(1)} of lean`, o.rps / l.rps >= read.target, o.rps / l.rps),
      );
      measured.push(...all);
    }
    return { rows, rss: measured, idle, idleBytes };
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

/** A target's verdict, with the figure it was judged on. */
function judged(target: string, met: boolean, figure: number, unit = ''): string {
  return `target: ${target}: ${met ? 'met' : 'MISSED'} (${figure.toFixed(unit ? 1 : 2)}${unit && ` ${unit}`})`;
}

logMachine(
  `opentill read bench: ${count(ROWS)} transactions, ${count(PENDING)} in the feed, ${CONNECTIONS} connections`,
);
const workDir = mkdtempSync(join(tmpdir(), 'opentill-read-bench-'));
const results: string[] = [];
const rssLines: string[] = [];
const idleLines: string[] = [];
const memoryTargets: string[] = [];
try {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  // A smoke run seeds afresh into its own directory: it must prove the seed still works.
  const store = await seededStore(ROWS, PENDING, {
    force: process.env.BENCH_FRESH === '1',
    file: SMOKE ? join(workDir, 'smoke.db') : undefined,
    log,
  });
  for (const kind of storesToMeasure()) {
    const target = await benchStore(kind, store, { writable: false, dir: workDir, log });
    try {
      const { rows, rss, idle, idleBytes } = await measureStore(kind, target.location, store, workDir);
      results.push(...rows);
      idleLines.push(idle);
      const peak = (server: string) =>
        rss
          .filter((m) => m.server === server)
          .reduce<number | undefined>((max, m) => Math.max(max ?? 0, m.rss ?? 0) || undefined, undefined);
      rssLines.push(
        `${kind.padEnd(8)} opentill ${mib(peak('opentill'))}   lean ${mib(peak('lean server'))}   bare ${mib(peak('bare node:http'))}`,
      );
      const ofLean = (peak('opentill') ?? Infinity) / (peak('lean server') ?? 0);
      memoryTargets.push(
        judged(
          `${kind} peak resident size at most ${TARGET_PEAK_OF_LEAN} times lean's`,
          ofLean <= TARGET_PEAK_OF_LEAN,
          ofLean,
        ),
        judged(
          `${kind} idle resident size below ${TARGET_IDLE_MIB} MiB`,
          (idleBytes ?? Infinity) < TARGET_IDLE_MIB * 1048576,
          (idleBytes ?? NaN) / 1048576,
          'MiB',
        ),
      );
    } finally {
      await target.drop();
    }
  }
  log('');
  log(
    `reads of ${count(ROWS)} transactions (${store.fresh ? 'seeded now' : 'cached store'}, seeding took ${store.seedSeconds.toFixed(1)} s), ${CONNECTIONS} connections`,
  );
  for (const line of results) log(line);
  log("resident set size of each server process under the read load (peak; PostgreSQL's own processes not included):");
  for (const line of rssLines) log(line);
  log(
    `resident set size of each server process idle, ${IDLE_WAIT_MS / 1000} s after its start and before any request:`,
  );
  for (const line of idleLines) log(line);
  for (const line of memoryTargets) log(line);
  log(`load average after: ${loadAverage()}`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
  if (PROFILE_DIR) log(`cpu profile of the opentill child written to ${PROFILE_DIR}`);
}
