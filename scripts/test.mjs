// `npm test` after the type check and lint: every test file, in two rounds. First the files that only
// need their own databases and ports, several at once (each file is a process of its own with fresh
// SQLite files, a PostgreSQL database of its own and its own Redis key prefix, support/databases.ts).
// Then, one at a time, the files that need the machine alone: timing figures, SIGKILL and chaos,
// outages, the compiled build and the benches' smoke runs. Prints the wall time of each round.
//
//   node scripts/test.mjs [--quick] [file or folder ...]
//
// --quick: unit and API tests on SQLite only (the edit loop, `npm run test:quick`).
// TEST_CONCURRENCY sets how many files run at once in the first round (default: cores + 1, since most
// files spend their time waiting on a database, a browser or a child process).
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Files that must not share the machine: they measure time, kill processes, or stop services. */
const ALONE = [
  'test/outages/',
  'test/process/',
  'test/bench/',
  'test/faults/money-kill.test.ts',
  'test/billing/crash.test.ts',
  'test/billing/sandbox-clock-isolation.test.ts',
];
const QUICK = ['test/unit/', 'test/api/'];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const roots = args.filter((a) => !a.startsWith('--'));

function testFiles(path) {
  if (!statSync(path).isDirectory()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => testFiles(join(path, name)));
}

const defaults = quick ? QUICK : ['test'];
const files = (roots.length > 0 ? roots : defaults)
  .flatMap(testFiles)
  .map((f) => relative('.', f))
  .sort();
const alone = (f) => ALONE.some((prefix) => f === prefix || f.startsWith(prefix));
const together = files.filter((f) => !alone(f));
const apart = files.filter(alone);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 1);
// Node runs the TypeScript itself (type stripping; tsconfig's erasableSyntaxOnly keeps the sources so)
// and keeps the code it compiled on disk: each file's process loads the app in about half the time.
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'opentill-test-compile-cache'),
  ...(quick ? { OPENTILL_TEST_STORES: 'sqlite' } : {}),
};

function round(list, concurrent) {
  if (list.length === 0) return Promise.resolve(0);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrent}`, ...list], {
      stdio: 'inherit',
      env,
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = performance.now();
const first = await round(together, concurrency);
const firstDone = performance.now();
const second = await round(apart, 1);
const ended = performance.now();
console.log(
  `\nnpm test: ${together.length} files ${concurrency} at a time in ${seconds(firstDone - started)}` +
    (apart.length ? `, then ${apart.length} files alone in ${seconds(ended - firstDone)}` : '') +
    `; ${seconds(ended - started)} of tests${first || second ? ' (FAILED)' : ''}.`,
);
process.exitCode = first || second ? 1 : 0;
