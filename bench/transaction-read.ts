/**
 * `npm run bench`: GET /sandbox/v1/transaction/{id} of opentill on a SQLite store holding
 * BENCH_ROWS transactions (default 1,000,000), against a bare node:http server answering the same
 * bytes. Prints requests/s and p99 latency of each, and the ratio opentill / bare (target >= 0.50).
 *
 * Each server runs in its own child process on 127.0.0.1; this process only generates the load
 * (autocannon), asking for random IDs out of ~1000 seeded ones. Not part of `npm test`.
 *
 * Environment:
 *   BENCH_ROWS=1000000     transactions in the store (the seeded file is cached in the temp dir)
 *   BENCH_SECONDS=10       measured seconds per server
 *   BENCH_WARMUP=3         warm-up seconds per server, not measured
 *   BENCH_CONNECTIONS=20   concurrent keep-alive connections
 *   BENCH_FRESH=1          reseed even if a cached store exists
 *   BENCH_PROFILE=<dir>    run the opentill child with --cpu-prof, writing the profile into <dir>
 *   BENCH_ONLY=opentill    measure only opentill (e.g. while profiling)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { BENCH_SECRET, seededStore } from './seed.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${raw}".`);
  return n;
}

const ROWS = positive('BENCH_ROWS', 1_000_000);
const SECONDS = positive('BENCH_SECONDS', 10);
const WARMUP = positive('BENCH_WARMUP', 3);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 20);
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined;
const ONLY = process.env.BENCH_ONLY;
const TARGET = 0.5;

const log = (line: string) => process.stdout.write(line + '\n');

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts a child and waits until a line of its stdout matches `ready`. */
async function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const match = await new Promise<RegExpMatchArray>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = output.match(ready);
      if (found) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolvePromise(found);
      }
    });
  });
  return { child, match };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Every connection walks the same sampled paths, each in its own random order. */
function load(url: string, paths: readonly string[], authorization: string, duration: number): Promise<Result> {
  const requests = () => shuffled(paths).map((path) => ({ method: 'GET', path }));
  return autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration,
    headers: { authorization },
    requests: requests(),
    setupClient: (client) => client.setRequests(requests()),
  });
}

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  non2xx: number;
}

async function measure(name: string, url: string, paths: readonly string[], authorization: string): Promise<Measured> {
  log(`${name}: warm-up ${WARMUP} s, then ${SECONDS} s with ${CONNECTIONS} connections ...`);
  await load(url, paths, authorization, WARMUP);
  const result = await load(url, paths, authorization, SECONDS);
  const measured = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
  };
  if (measured.errors || measured.non2xx)
    log(`  ${name}: ${measured.errors} errors, ${measured.non2xx} non-2xx answers ${JSON.stringify(result.statusCodeStats)}`);
  return measured;
}

async function main() {
  log(`opentill transaction-read bench: ${ROWS.toLocaleString('en-US')} transactions, ${SECONDS} s per server, ${CONNECTIONS} connections`);
  log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}, node ${process.version}`,
  );
  const store = await seededStore(ROWS, { force: process.env.BENCH_FRESH === '1', log });
  const children: ChildProcess[] = [];
  try {
    // opentill exactly as `opentill serve` runs it, with logging silenced and limits out of the way.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
    const opentill = await startChild(
      'opentill',
      [...(PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : []), join(root, 'bin/opentill.js'), 'serve'],
      {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        BASE_URL: base,
        SANDBOX_URL: `${base}/sandbox`,
        DATABASE_URL: '',
        SQLITE_FILE: store.file,
        OPENTILL_SECRET: BENCH_SECRET,
        OPENTILL_DATA_DIR: join(tmpdir(), 'opentill-bench-data'),
        OPENTILL_DEMO: 'false',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_CREDENTIAL: '100000000',
        RATE_LIMIT_PER_ADDRESS: '100000000',
        TRUST_PROXY: '',
      },
      /listening on/,
    );
    children.push(opentill.child);

    const paths = store.sampleIds.map((id) => `/sandbox/v1/transaction/${id}`);
    const probe = await fetch(base + paths[0]!, { headers: { authorization: store.authorization } });
    const body = Buffer.from(await probe.arrayBuffer());
    const contentType = probe.headers.get('content-type') ?? '';
    if (probe.status !== 200) throw new Error(`opentill answered ${probe.status}: ${body.toString()}`);
    const parsed = JSON.parse(body.toString()) as { id?: string; entries?: unknown[] };
    if (parsed.id !== store.sampleIds[0] || parsed.entries?.length !== 1) throw new Error(`unexpected answer: ${body.toString()}`);
    log(`one answer: ${body.length} bytes of ${contentType}, ${parsed.entries.length} ledger entry`);

    const bare = await startChild(
      'bare server',
      ['--import', 'tsx', join(root, 'bench/bare-server.ts')],
      { ...process.env, BENCH_BODY_BASE64: body.toString('base64'), BENCH_CONTENT_TYPE: contentType },
      /listening (\d+)/,
    );
    children.push(bare.child);
    const bareBase = `http://127.0.0.1:${bare.match[1]}`;
    const check = await fetch(bareBase + paths[0]!, { headers: { authorization: store.authorization } });
    const bareBody = Buffer.from(await check.arrayBuffer());
    if (!bareBody.equals(body) || check.headers.get('content-type') !== contentType) throw new Error('the bare server does not answer the same bytes');

    const results: Measured[] = [];
    if (ONLY !== 'opentill') results.push(await measure('bare node:http', bareBase, paths, store.authorization));
    if (ONLY !== 'bare') results.push(await measure('opentill', base, paths, store.authorization));

    log('');
    log(
      `GET /sandbox/v1/transaction/{id}, ${ROWS.toLocaleString('en-US')} transactions, ${store.sampleIds.length} distinct ids, ${CONNECTIONS} connections, ${SECONDS} s`,
    );
    log(`store: ${store.file} (${store.fresh ? 'seeded now' : 'cached'}; seeding took ${store.seedSeconds.toFixed(1)} s)`);
    for (const r of results) {
      log(
        `${r.name.padEnd(16)} ${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.total.toLocaleString('en-US')} requests${r.errors || r.non2xx ? `, ${r.errors} errors, ${r.non2xx} non-2xx` : ''})`,
      );
    }
    const [b, o] = results;
    if (b && o && b.name !== o.name) {
      const ratio = o.rps / b.rps;
      log(`ratio opentill/bare ${ratio.toFixed(2)} (target >= ${TARGET.toFixed(2)}: ${ratio >= TARGET ? 'met' : 'NOT met'})`);
    }
    log(
      `load average after: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    if (results.some((r) => r.errors || r.non2xx)) process.exitCode = 1;
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (PROFILE_DIR) log(`cpu profile of the opentill child written to ${PROFILE_DIR}`);
  }
}

await main();
