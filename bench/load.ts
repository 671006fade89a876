import { writeFileSync } from 'node:fs';
import autocannon, { type Request, type Result } from 'autocannon';
import type { KeptAnswer } from './bare-server.ts';
import { sampleResidentSize, type Server } from './servers.ts';
import { count, log, SMOKE } from './settings.ts';

/**
 * The load generator every HTTP bench shares: autocannon with keep-alive connections from this
 * process, a warm-up that is not measured, then the measured run, while the server's resident size
 * is sampled. Latencies are autocannon's (milliseconds, whole numbers at this resolution).
 */
export interface LoadPlan {
  connections: number;
  /** Measured seconds; ignored when `amount` is set. */
  seconds: number;
  warmupSeconds: number;
  /** Stop after this many requests instead (writes that consume their rows, and smoke runs). */
  amount?: number | undefined;
  headers?: Record<string, string>;
  /** The requests one connection cycles through; called once per connection. */
  requests: () => Request[];
}

export interface Measured {
  server: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  non2xx: number;
  /** The server's largest resident size during the measured run, in bytes. */
  rss: number | undefined;
}

function run(base: string, plan: LoadPlan, timed: { duration: number } | { amount: number }): Promise<Result> {
  return autocannon({
    url: base,
    connections: plan.connections,
    pipelining: 1,
    // A slow read (a full scan under 20 connections) still counts, however slow, rather than failing.
    timeout: 30,
    // A run ends only on a sample: sampling often lets a counted run end when its last answer arrives.
    ...('amount' in timed ? { amount: timed.amount, sampleInt: 50 } : timed),
    headers: plan.headers ?? {},
    requests: plan.requests(),
    setupClient: (client) => client.setRequests(plan.requests()),
  });
}

/** Smoke runs send a few dozen requests per server, no warm-up: enough to prove the bench works. */
const SMOKE_REQUESTS = 40;

export async function measure(server: Server, plan: LoadPlan): Promise<Measured> {
  const amount = SMOKE ? Math.min(plan.amount ?? SMOKE_REQUESTS, SMOKE_REQUESTS) : plan.amount;
  if (!SMOKE && plan.warmupSeconds > 0) await run(server.base, plan, { duration: plan.warmupSeconds });
  const rss = sampleResidentSize(server.pid);
  const started = performance.now();
  const result = await run(server.base, plan, amount ? { amount } : { duration: plan.seconds });
  const seconds = (performance.now() - started) / 1000;
  const measured: Measured = {
    server: server.name,
    rps: amount ? result.requests.total / seconds : result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    rss: rss.stop(),
  };
  if (measured.errors || measured.non2xx) {
    log(`  ${server.name}: ${measured.errors} errors, ${measured.non2xx} non-2xx answers ${JSON.stringify(result.statusCodeStats)}`);
    process.exitCode = 1;
  }
  return measured;
}

export const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1048576).toFixed(0)} MiB`);

/**
 * One printed row: `<label> <server> <n> req/s p50 <ms> ms p99 <ms> ms rss <n> MiB` and the ratio to each
 * reference given. Every figure is a number (the smoke test reads them).
 */
export function row(label: string, m: Measured, references: Record<string, Measured | undefined> = {}): string {
  const ratios = Object.entries(references)
    .filter(([, ref]) => ref !== undefined && ref !== m)
    .map(([name, ref]) => `${(m.rps / ref!.rps).toFixed(2)} of ${name}`)
    .join('  ');
  return (
    `${label.padEnd(38)} ${m.server.padEnd(15)} ${count(m.rps).padStart(7)} req/s   p50 ${m.p50.toFixed(1).padStart(6)} ms   p99 ${m.p99.toFixed(1).padStart(6)} ms   ` +
    `rss ${mib(m.rss).padStart(8)}   ${ratios}` +
    (m.errors || m.non2xx ? `   (${m.errors} errors, ${m.non2xx} non-2xx of ${count(m.total)})` : '')
  ).trimEnd();
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** One request, its answer kept whole; refuses an unexpected status. */
export async function probe(url: string, init: RequestInit & { expect?: number } = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== (init.expect ?? 200)) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${body.toString().slice(0, 500)}`);
  return { status: response.status, headers: response.headers, body };
}

/** Writes what the bare server answers: per path prefix, the status, the headers named, and the body of `answer`. */
export function writeAnswers(file: string, kept: { prefix: string; answer: Answer; headers?: string[] }[]): void {
  const answers: KeptAnswer[] = kept.map(({ prefix, answer, headers = [] }) => ({
    prefix,
    status: answer.status,
    headers: Object.fromEntries(['content-type', ...headers].map((name) => [name, answer.headers.get(name) ?? ''])),
    bodyBase64: answer.body.toString('base64'),
  }));
  writeFileSync(file, JSON.stringify(answers));
}

export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
