// `npm test` after the type check and lint: every test file, in three rounds. First the files that only
// need their own databases and ports (fresh SQLite files, a PostgreSQL database of their own and their
// own Redis key prefix, support/databases.ts), shared among a few processes that each run their files
// one after another. Then the files that kill processes or stop services, and the benches' smoke runs, a
// process each, two at a time: they start servers and workers of their own, and assert no time. Last,
// one at a time, the files that measure time: a p99, a catch-up bound, a ratio of two runs. Prints the
// wall time of each round, and how many cores it kept busy (from /proc/stat, where there is one).
//
//   node scripts/test.mjs [--quick] [--checks] [--screenshots] [file or folder ...]
//
// --checks (`npm test`): the type check, ESLint, oxlint and Prettier (scripts/checks.mjs) run at the lowest
// priority from when the first of the first round's processes ends, filling the cores the end of that round
// and the second round leave idle; their account is printed when they end, the time-measuring round waits
// for them, and the run fails if they do. Started with the first round instead, they took it from 182 s to
// 199-214 s (their 47 core-s were not all taken from idle cores), and the second round kept only 1.65 cores busy.
// --quick: unit and API tests on SQLite only (the edit loop, `npm run test:quick`).
// --screenshots: the page tests write their screenshots to test-artifacts/ (`npm run screenshots`); without
// it they take none (OPENTILL_SCREENSHOTS=0, support/chromium.ts), as no test reads them.
// --weigh: after the run, writes each file's time to scripts/test-weights.json, which
// shares the first round's files fairly (run it on the whole suite when files have come or changed).
// TEST_CONCURRENCY sets how many processes share the first round (default: twice the cores, since most
// files spend much of their time waiting on a database, a browser or a child process). On 2 cores, 4
// processes took the round from 161 s (3 processes, 1.82 cores busy) to 134 s (1.89 cores busy), and
// with less CPU in all: a process that runs fewer files keeps a smaller heap. 5 and 6 gained nothing.
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Files that measure time: each runs with the machine to itself. */
const ALONE = [
  'test/outages/redis-stall.test.ts',
  // Renewals with a hung SMTP server within 1.5 times those without: beside another file, once x1.53.
  'test/outages/smtp-hang.test.ts',
  // Its lease and SMTP deadlines decide what a restarted worker finds due: beside another file, a send ran late.
  'test/process/email-kill.test.ts',
];
/** Files that kill processes, stop services or run the compiled build: two at a time, after the rest. */
// The benches' smoke runs time nothing (their figures are printed, not judged): they start servers and load generators.
const APART = [
  'test/bench/',
  'test/outages/',
  'test/process/',
  'test/faults/money-kill.test.ts',
  'test/billing/crash.test.ts',
  // It asserts that another vendor's reads go on during a catch-up (at least 50, and one per 100 ms), not
  // a latency: it needs no machine to itself, only not to share two cores with four others.
  'test/billing/sandbox-clock-isolation.test.ts',
];
/**
 * About how long each file takes (seconds, from a run of the whole suite), to share the first round's
 * files fairly between its processes; a file not listed counts as a middling one.
 */
const WEIGHTS = JSON.parse(readFileSync(new URL('./test-weights.json', import.meta.url), 'utf8'));
// At least half a second: a file weighed 0 would go to the same share as the one before it and leave another empty.
const weight = (f) => Math.max(WEIGHTS[f] ?? 5, 0.5);
const QUICK = ['test/unit/', 'test/api/'];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const withChecks = args.includes('--checks');
const weigh = args.includes('--weigh');
const screenshots = args.includes('--screenshots');
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
const alone = files.filter(within(ALONE));
const apart = files.filter((f) => within(APART)(f) && !within(ALONE)(f));
const together = files.filter((f) => !within(ALONE)(f) && !within(APART)(f));
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() * 2);
// Node runs the TypeScript itself (type stripping; tsconfig's erasableSyntaxOnly keeps the sources so)
// and keeps the code it compiled on disk: each file's process loads the app in about half the time.
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'opentill-test-compile-cache'),
  ...(quick ? { OPENTILL_TEST_STORES: 'sqlite' } : {}),
  OPENTILL_SCREENSHOTS: screenshots ? '1' : '0',
};

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const logs = mkdtempSync(join(tmpdir(), 'opentill-test-logs-'));

/** One `node --test` process over `list`: dots on the terminal, the spec reporter's account in `log`. */
function nodeTest(list, flags, log) {
  return new Promise((resolve) => {
    const reporters = ['--test-reporter=dot', '--test-reporter-destination=stdout'];
    if (log) reporters.push('--test-reporter=spec', `--test-reporter-destination=${log}`);
    if (log && weigh)
      reporters.push('--test-reporter=./scripts/test-weigher.mjs', `--test-reporter-destination=${log}.weights`);
    const child = spawn(process.execPath, ['--test', ...flags, ...reporters, ...list], { stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** The tests run, passed, failed and skipped, over every process, from their spec accounts' last lines. */
const counted = { tests: 0, pass: 0, fail: 0, skipped: 0 };
const readLog = (log) => (existsSync(log) ? readFileSync(log, 'utf8') : '');
/** Counts what one process's spec account says it ran and, if it failed, prints its "failing tests" part. */
function account(log, code) {
  const text = readLog(log);
  for (const name of Object.keys(counted))
    counted[name] += Number(text.match(new RegExp(`^ℹ ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  if (code === 0) return;
  const at = text.lastIndexOf('failing tests:');
  process.stdout.write(`\n${at >= 0 ? text.slice(at) : text}\n`);
}

/**
 * The first round: the files shared among `shares` processes, heaviest first onto the lightest share,
 * each process running its files one after another in itself (--test-isolation=none). A process per
 * file spent more on starting Node and loading the app than most files spend testing; the files keep
 * their own databases, ports and Redis prefixes, and set no global state.
 */
async function shared(list, shares) {
  const loads = Array.from({ length: Math.min(shares, list.length) }, () => ({ files: [], load: 0 }));
  for (const f of [...list].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const lightest = loads.reduce((a, b) => (b.load < a.load ? b : a));
    lightest.files.push(f);
    lightest.load += weight(f);
  }
  // `node --test` given no file runs every test file it finds (the whole suite): never start a share without files.
  const codes = await Promise.all(
    loads
      .filter(({ files: share }) => share.length > 0)
      .map(async ({ files: share }, i) => {
        const log = join(logs, `share-${i}.log`);
        const begun = performance.now();
        const code = await nodeTest(share, ['--test-isolation=none'], log);
        beginChecks();
        process.stdout.write(`\n[share ${i + 1}: ${share.length} files in ${seconds(performance.now() - begun)}]\n`);
        account(log, code);
        return code;
      }),
  );
  return codes.find((code) => code !== 0) ?? 0;
}

/** A later round: a process per file, `concurrent` at a time, the longest first so the round does not end on one. */
async function isolated(list, concurrent) {
  const log = join(logs, `isolated-${concurrent}.log`);
  const longestFirst = [...list].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
  const code = await nodeTest(longestFirst, [`--test-concurrency=${concurrent}`], log);
  account(log, code);
  return code;
}

/**
 * --weigh: this run's times into test-weights.json (seconds rounded up, the heaviest first), each the mean
 * of this run's and the weight before it where there was one: a file's time in a loaded run moves by half
 * or more from one run to the next (a11y-pages 28 s, then 44 s), and one run alone would share by its noise.
 */
function writeWeights() {
  const measured = readdirSync(logs)
    .filter((name) => name.endsWith('.weights'))
    .flatMap((name) => readLog(join(logs, name)).trim().split('\n'))
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .map(([s, file]) => [file, Math.ceil(WEIGHTS[file] === undefined ? Number(s) : (Number(s) + WEIGHTS[file]) / 2)]);
  const weights = Object.entries({ ...WEIGHTS, ...Object.fromEntries(measured) }).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  writeFileSync(
    new URL('./test-weights.json', import.meta.url),
    `${JSON.stringify(Object.fromEntries(weights), null, 2)}\n`,
  );
  console.log(`scripts/test-weights.json: ${measured.length} files weighed.`);
}

/** scripts/checks.mjs at the lowest priority: resolves to its exit code once its account is printed. */
function startChecks() {
  const begun = performance.now();
  const child = spawn(process.execPath, ['scripts/checks.mjs'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENTILL_CHECKS_NICE: '1' },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // A child that could not start emits 'error' and then 'close' (with no code): one account either way.
  child.on('error', (error) => (output += `checks: could not start (${error.message})\n`));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      process.stdout.write(`\n${output.trimEnd()}\n`);
      resolve({ code: code ?? 1, took: performance.now() - begun });
    });
  });
}
/**
 * The checks' run (--checks), begun by the first of the first round's processes to end, or by the first
 * later round when there is no first round.
 * @type {Promise<{ code: number, took: number }> | undefined}
 */
let checks;
const beginChecks = () => {
  if (withChecks) checks ??= startChecks();
};

/** Waits for the checks (if they run) before the round that measures time, which needs the machine alone. */
async function aloneAfterChecks() {
  await checks;
  return isolated(alone, 1);
}

const rounds = [
  [together, () => shared(together, concurrency), `${together.length} files in ${concurrency} processes`],
  [apart, () => isolated(apart, 2), `${apart.length} files 2 at a time`],
  [alone, aloneAfterChecks, `${alone.length} files alone`],
];
/** The machine's busy CPU time so far in seconds, from /proc/stat (Linux), to print how busy each round kept it. */
function busySeconds() {
  if (!existsSync('/proc/stat')) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) / 100; // in USER_HZ, 100 a second on Linux
}
const busy = (from, ms) => {
  const now = busySeconds();
  return now === undefined ? '' : ` (${((now - from) / (ms / 1000)).toFixed(2)} cores busy)`;
};

const started = performance.now();
const said = [];
let failed = false;
for (const [list, run, what] of rounds) {
  if (list.length === 0) continue;
  const begun = performance.now();
  const busyBefore = busySeconds();
  if (list !== together) beginChecks();
  if ((await run()) !== 0) failed = true;
  const took = performance.now() - begun;
  said.push(`${what} in ${seconds(took)}${busy(busyBefore, took)}`);
}
let checked = '';
beginChecks(); // a run with no test file at all
if (checks) {
  const { code, took } = await checks;
  checked = ` The checks ${code === 0 ? 'passed' : 'FAILED'} beside the tests in ${seconds(took)}.`;
  if (code !== 0) failed = true;
}
console.log(
  `\nnpm test: ${said.join(', then ')}; ${seconds(performance.now() - started)} in all${failed ? ' (FAILED)' : ''}.${checked}` +
    ` ${counted.tests} tests: ${counted.pass} passed, ${counted.fail} failed, ${counted.skipped} skipped.`,
);
// A failing file still took its time: its weight is as good as any other's.
if (weigh) writeWeights();
// The PostgreSQL databases the test processes emptied and kept for a next test they no longer have
// (support/postgres-reuse.ts); none if PostgreSQL is not there.
await import('../support/postgres-reuse.ts').then((reuse) => reuse.reapOrphans()).catch(() => undefined);
rmSync(logs, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
