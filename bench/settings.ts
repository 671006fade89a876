import { cpus, loadavg } from 'node:os';
import type { StoreKind } from '../support/databases.ts';

/**
 * What every bench reads from its environment. BENCH_SMOKE=1 is the smoke mode that `npm test` runs
 * (test/bench/bench-smoke.test.ts): tiny sizes and short runs, so a change that breaks a bench is
 * noticed at once; its figures are not a measurement.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A positive whole number from BENCH_<name>, else `fallback`, or `smoke` in the smoke mode (which wins). */
export function setting(name: string, fallback: number, smoke = fallback): number {
  if (SMOKE) return smoke;
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${raw}".`);
  return n;
}

/** BENCH_STORES: the stores to measure, `sqlite,postgres` unless said otherwise. */
export function storesToMeasure(): StoreKind[] {
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
  for (const store of stores)
    if (store !== 'sqlite' && store !== 'postgres') throw new Error(`BENCH_STORES: unknown store "${store}"`);
  return stores as StoreKind[];
}

export const log = (line = '') => process.stdout.write(line + '\n');

export const count = (n: number) => Math.round(n).toLocaleString('en-US');

export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** The first line of every bench's output: the machine it measured on and how busy it was. */
export function logMachine(title: string) {
  log(`${title}${SMOKE ? ' (smoke run: tiny sizes, the figures are not a measurement)' : ''}`);
  log(`machine: ${cpus().length} cores, load average ${loadAverage()}, node ${process.version}`);
}
