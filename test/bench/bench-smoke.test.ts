import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

/**
 * Benches run in their smoke mode (tiny sizes), so a change that breaks one is noticed by `npm test`
 * and not by the next person measuring. Figures are not checked here: a bench prints them.
 */
const run = promisify(execFile);
const bench = (file: string) =>
  run(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, BENCH_SMOKE: '1' }, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 });

test('bench:checkout (smoke) prints the page size, first paint, baseline and ratio', async () => {
  const { stdout } = await bench('bench/checkout-paint.ts');
  assert.match(stdout, /checkout HTML: \d+ bytes/);
  assert.match(stdout, /checkout first paint: median [\d.]+ ms/);
  assert.match(stdout, /ratio checkout\/baseline first paint: [\d.]+/);
});
