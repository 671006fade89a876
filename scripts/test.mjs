// `npm test` after the type check and lint: every test file, in three rounds. First the files that only
// need their own databases and ports, several at once (each file is a process of its own with fresh
// SQLite files, a PostgreSQL database of its own and its own Redis key prefix, support/databases.ts),
// the longest first so the round does not end waiting on one of them. Then the files that kill
// processes or stop services, two at a time: they wait on children and timers more than they compute,
// and assert no time. Last, one at a time, the files that measure time: a p99, a catch-up bound, the
// benches' smoke runs. Prints the wall time of each round.
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

/** Files that measure time: each runs with the machine to itself. */
const ALONE = [
  'test/bench/',
  'test/outages/redis-stall.test.ts',
  'test/billing/sandbox-clock-isolation.test.ts',
  // Its lease and SMTP deadlines decide what a restarted worker finds due: beside another file, a send ran late.
  'test/process/email-kill.test.ts',
];
/** Files that kill processes, stop services or run the compiled build: two at a time, after the rest. */
const APART = ['test/outages/', 'test/process/', 'test/faults/money-kill.test.ts', 'test/billing/crash.test.ts'];
/** The longest files of the first round (about 15 s or more each), started first. */
const LONGEST = [
  'test/billing/lifecycle.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/panel-sign-up-cli.test.ts',
  'test/cli/backup.test.ts',
  'test/faults/money-faults.test.ts',
  'test/api/route-fuzz.test.ts',
  'test/faults/stripe-money-faults.test.ts',
  'test/browser/a11y-pages.test.ts',
  'test/browser/panel.test.ts',
  'test/billing/worker-drain.test.ts',
  'test/api/seller-details.test.ts',
  'test/stripe/reversals-property.test.ts',
  'test/billing/race.test.ts',
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
const within = (list) => (f) => list.some((prefix) => f === prefix || f.startsWith(prefix));
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const alone = files.filter(within(ALONE));
const apart = files.filter((f) => within(APART)(f) && !within(ALONE)(f));
const together = files
  .filter((f) => !within(ALONE)(f) && !within(APART)(f))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
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
const rounds = [
  [together, concurrency, `${together.length} files ${concurrency} at a time`],
  [apart, 2, `${apart.length} files 2 at a time`],
  [alone, 1, `${alone.length} files alone`],
];
const started = performance.now();
const said = [];
let failed = false;
for (const [list, concurrent, what] of rounds) {
  if (list.length === 0) continue;
  const begun = performance.now();
  if ((await round(list, concurrent)) !== 0) failed = true;
  said.push(`${what} in ${seconds(performance.now() - begun)}`);
}
console.log(
  `\nnpm test: ${said.join(', then ')}; ${seconds(performance.now() - started)} of tests${failed ? ' (FAILED)' : ''}.`,
);
process.exitCode = failed ? 1 : 0;
