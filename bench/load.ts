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
  /**
   * A cheap GET (with `headers`) the server answers only once it has worked off what an earlier run
   * left queued: slow requests whose client has gone still run, and must not weigh on the next run.
   */
  idlePath: string;
}

export interface Measured {
  server: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** How long the measured run took. */
  seconds: number;
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

/**
 * Measures `server` under `plan`. `neighbours`: the other servers of the run, on the same two cores;
 * they too must have worked off an earlier run's queue before this one starts.
 */
export async function measure(server: Server, plan: LoadPlan, neighbours: Server[] = []): Promise<Measured> {
  const amount = SMOKE ? Math.min(plan.amount ?? SMOKE_REQUESTS, SMOKE_REQUESTS) : plan.amount;
  const idle = (of: Server) =>
    fetch(of.base + plan.idlePath, { headers: plan.headers ?? {} }).then((r) => r.arrayBuffer());
  await Promise.all([server, ...neighbours].map(idle));
  if (!SMOKE && plan.warmupSeconds > 0) {
    await run(server.base, plan, { duration: plan.warmupSeconds });
    await idle(server);
  }
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
    seconds,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    rss: rss.stop(),
  };
  if (measured.errors || measured.non2xx) {
    log(
      `  ${server.name}: ${measured.errors} errors, ${measured.non2xx} non-2xx answers ${JSON.stringify(result.statusCodeStats)}`,
    );
    process.exitCode = 1;
  }
  return measured;
}

/**
 * Measures each of `contenders` in `rounds` rounds, taking turns, each round starting with the next
 * one (so a machine slowing down mid-run weighs on all alike); each warms up in its first round only.
 * Returns each one's rounds combined, in the order given. `neighbours`: as for `measure`.
 */
export async function measureInTurns(
  contenders: Server[],
  rounds: number,
  plan: (server: Server) => LoadPlan,
  neighbours: Server[] = [],
): Promise<Measured[]> {
  const measured = contenders.map((): Measured[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const at = (i + round) % contenders.length;
      const load = plan(contenders[at]!);
      measured[at]!.push(
        await measure(contenders[at]!, round === 0 ? load : { ...load, warmupSeconds: 0 }, neighbours),
      );
    }
  }
  return measured.map(combined);
}

/**
 * Several rounds of one server as one: requests/s over all of them; p50, p99 and resident size the
 * worst round's (latency histograms are not kept, so no exact percentile of the whole).
 */
export function combined(rounds: Measured[]): Measured {
  const total = rounds.reduce((n, m) => n + m.total, 0);
  const seconds = rounds.reduce((n, m) => n + m.seconds, 0);
  const worst = (pick: (m: Measured) => number | undefined) => Math.max(...rounds.map((m) => pick(m) ?? 0));
  return {
    server: rounds[0]!.server,
    rps: total / seconds,
    p50: worst((m) => m.p50),
    p99: worst((m) => m.p99),
    total,
    seconds,
    errors: rounds.reduce((n, m) => n + m.errors, 0),
    non2xx: rounds.reduce((n, m) => n + m.non2xx, 0),
    rss: worst((m) => m.rss) || undefined,
  };
}

export const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1048576).toFixed(0)} MiB`);

/** Requests per second: whole numbers, with a decimal below 100 (a full scan may manage one a second). */
const rate = (rps: number) => (rps < 100 ? rps.toFixed(1) : count(rps));

/**
 * One printed row: `<label> <server> <n> req/s p50 <ms> ms p99 <ms> ms rss <n> MiB` and the ratio to each
 * reference given. Every figure is a number (the smoke test reads them).
 */
export function row(label: string, m: Measured, references: Record<string, Measured | undefined> = {}): string {
  const ratios = Object.entries(references)
    .filter(([, ref]) => ref !== undefined && ref !== m)
    .map(([name, ref]) => `${ref!.rps > 0 ? (m.rps / ref!.rps).toFixed(2) : 'n/a'} of ${name}`)
    .join('  ');
  return (
    `${label.padEnd(38)} ${m.server.padEnd(15)} ${rate(m.rps).padStart(7)} req/s   p50 ${m.p50.toFixed(1).padStart(6)} ms   p99 ${m.p99.toFixed(1).padStart(6)} ms   ` +
    `rss ${mib(m.rss).padStart(8)}   ${ratios}` +
    (m.errors || m.non2xx ? `   (${m.errors} errors, ${m.non2xx} non-2xx of ${count(m.total)})` : '') +
    (m.total === 0 ? '   (no answer within the run: the latencies are not measured)' : '')
  ).trimEnd();
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** How long this one request took, alone. */
  ms: number;
}

/** One request, its answer kept whole; refuses an unexpected status. */
export async function probe(url: string, init: RequestInit & { expect?: number } = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  if (response.status !== (init.expect ?? 200))
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${body.toString().slice(0, 500)}`);
  return { status: response.status, headers: response.headers, body, ms };
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
