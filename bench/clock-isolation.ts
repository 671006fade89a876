/**
 * `npm run bench:clock-isolation`: how long another vendor waits while one vendor's sandbox catches
 * up years of billing. One vendor with a daily subscription moves its sandbox clock BENCH_YEARS
 * (default 20) years ahead, a year per call, back to back; the billing worker catches up as
 * `opentill serve` runs it; meanwhile another vendor reads its sandbox and production transactions
 * (GET /v1/transaction/{id}) from a thread of its own. Then the same reads run with nothing moving,
 * for as long (at most 20 s), as the baseline. On SQLite and on PostgreSQL; prints the reads' p50,
 * p99 and maximum in both runs, the p99 ratio, the slowest move and how long the catch-up took.
 * Target: p99 under 100 ms while catching up. The behaviour (every read answers, the catch-up
 * finishes) is test/billing/sandbox-clock-isolation.test.ts.
 *
 * Environment:
 *   BENCH_YEARS=20             years the clock moves (at most 20)
 *   BENCH_CONNECTIONS=2        the reader's concurrent requests
 *   BENCH_GAP_MS=5             pause between one connection's requests
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1              one year and a 1 s baseline, for `npm test` (test/bench/bench-smoke.test.ts)
 */
import { catchUpUnderLoad, percentile, type CatchUpRun } from '../support/sandbox-catch-up.ts';
import { setting, SMOKE, storesToMeasure } from './settings.ts';

const YEARS = setting('BENCH_YEARS', 20, 1);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 2);
const GAP_MS = setting('BENCH_GAP_MS', 5);
const STORES = storesToMeasure();
const TARGET_P99_MS = 100;

const ms = (value: number) => `${value.toFixed(1)} ms`;
const figures = (reads: number[]) =>
  `${reads.length} reads, p50 ${ms(percentile(reads, 0.5))}, p99 ${ms(percentile(reads, 0.99))}, max ${ms(Math.max(...reads))}`;

for (const kind of STORES) {
  const moving: CatchUpRun = await catchUpUnderLoad(kind, { years: YEARS, connections: CONNECTIONS, gapMs: GAP_MS });
  if (moving.failures.length || moving.workerErrors.length) {
    throw new Error(
      `${kind}: ${moving.failures.length} failed reads, worker errors: ${moving.workerErrors.map(String).join('; ')}`,
    );
  }
  const quiet = await catchUpUnderLoad(kind, {
    years: 0,
    quietMs: Math.min(moving.catchUpMs, SMOKE ? 1000 : 20_000),
    connections: CONNECTIONS,
    gapMs: GAP_MS,
  });
  const p99 = percentile(moving.reads, 0.99);
  const renewals = moving.payments - 1;
  process.stdout.write(
    [
      `${kind}: ${YEARS} years of a daily subscription (${renewals} renewals) caught up in ${(moving.catchUpMs / 1000).toFixed(1)} s ` +
        `(${Math.round(renewals / (moving.catchUpMs / 1000))} renewals/s); slowest of ${moving.advances.length} moves ${ms(Math.max(...moving.advances))}`,
      `  another vendor while catching up: ${figures(moving.reads)}`,
      `  another vendor, nothing moving:   ${figures(quiet.reads)}`,
      `  p99 ratio ${(p99 / percentile(quiet.reads, 0.99)).toFixed(2)}; target p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'MISSED'}`,
    ].join('\n') + '\n',
  );
}
