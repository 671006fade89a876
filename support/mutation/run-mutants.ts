/**
 * Mutation testing by hand-made mutants (support/mutation/mutants.ts): each mutant is applied to a
 * scratch copy of the repository, outside the working tree, and its tests are run there. A mutant
 * whose tests fail is KILLED; one whose tests pass SURVIVED. The listed tests must first pass
 * unmutated, or no mutant could be said to be killed.
 *
 *   npm run mutants                      every mutant
 *   npm run mutants -- --only a,b        only these ids
 */
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { mutants, type Mutant } from './mutants.ts';

const REPO = resolve(import.meta.dirname, '../..');
const SCRATCH = process.env.OPENTILL_MUTANTS_DIR ?? '/tmp/opentill-mutants';
const MUTANT_TIMEOUT_MS = 180_000;
/** The whole run stops starting mutants after this long; the rest are reported as NOT RUN. */
const RUN_BUDGET_MS = 60 * 60_000;

function parseOnly(argv: string[]): Set<string> | undefined {
  const at = argv.indexOf('--only');
  if (at === -1) return undefined;
  const list = argv[at + 1];
  if (!list) throw new Error('--only needs a comma-separated list of mutant ids');
  return new Set(list.split(',').map((id) => id.trim()));
}

/** A fresh copy of the tracked files, with the repository's node_modules linked in. */
function makeScratch(): void {
  rmSync(SCRATCH, { recursive: true, force: true });
  mkdirSync(SCRATCH, { recursive: true });
  const files = execFileSync('git', ['-C', REPO, 'ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    const from = join(REPO, file);
    if (!existsSync(from)) continue; // deleted in the working tree but not yet in the index
    mkdirSync(dirname(join(SCRATCH, file)), { recursive: true });
    cpSync(from, join(SCRATCH, file));
  }
  // Mutants and the test files that kill them may not be committed yet: copy them as they are now.
  cpSync(join(REPO, 'support/mutation'), join(SCRATCH, 'support/mutation'), { recursive: true });
  cpSync(join(REPO, 'test'), join(SCRATCH, 'test'), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(SCRATCH, 'node_modules'));
}

function occurrences(text: string, find: string): number {
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) count++;
  return count;
}

/** Checks every mutant against the unmutated sources before anything runs. */
function validate(selected: Mutant[]): void {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const m of selected) {
    if (ids.has(m.id)) problems.push(`${m.id}: duplicate id`);
    ids.add(m.id);
    const text = readFileSync(join(REPO, m.file), 'utf8');
    const n = occurrences(text, m.find);
    if (n !== 1) problems.push(`${m.id}: "find" occurs ${n} times in ${m.file}, not once`);
    if (m.find === m.replace) problems.push(`${m.id}: replace equals find`);
    if (m.tests.length === 0) problems.push(`${m.id}: no tests`);
    for (const t of m.tests) if (!existsSync(join(REPO, t))) problems.push(`${m.id}: no test file ${t}`);
  }
  if (problems.length > 0) throw new Error(`Invalid mutants:\n  ${problems.join('\n  ')}`);
}

/** Runs test files in the scratch copy; resolves with whether they passed, or 'timeout'. */
function runTests(files: string[], timeoutMs: number): Promise<{ passed: boolean; timedOut: boolean; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
      cwd: SCRATCH,
      env: { ...process.env, OPENTILL_REQUIRE_POSTGRES: process.env.OPENTILL_REQUIRE_POSTGRES ?? '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ passed: code === 0 && !timedOut, timedOut, output });
    });
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const only = parseOnly(process.argv.slice(2));
  const selected = only ? mutants.filter((m) => only.has(m.id)) : mutants;
  if (only) for (const id of only) if (!mutants.some((m) => m.id === id)) throw new Error(`No mutant ${id}`);
  validate(selected);
  makeScratch();

  const testFiles = [...new Set(selected.flatMap((m) => m.tests))].sort();
  console.log(`Baseline: ${testFiles.length} test files, unmutated, in ${SCRATCH}`);
  // Each file alone, as the mutants run them, three at a time; a file that fails is run once more
  // alone, so a race test that lost under the load of its neighbours does not abort the run.
  const failed: string[] = [];
  let nextFile = 0;
  const lane = async () => {
    while (nextFile < testFiles.length) {
      const file = testFiles[nextFile++]!;
      const first = await runTests([file], MUTANT_TIMEOUT_MS);
      if (first.passed) continue;
      const again = await runTests([file], MUTANT_TIMEOUT_MS);
      if (again.passed) console.log(`Baseline: ${file} failed once under load, then passed alone.`);
      else {
        console.error(again.output);
        failed.push(file);
      }
    }
  };
  await Promise.all([lane(), lane(), lane()]);
  if (failed.length > 0) {
    console.error(`Baseline failed (${failed.join(', ')}): no mutant can be judged against red tests. Aborted.`);
    process.exit(2);
  }
  console.log(`Baseline green in ${seconds(Date.now() - started)}.`);

  const results: { m: Mutant; verdict: 'KILLED' | 'SURVIVED' | 'NOT RUN' }[] = [];
  for (const m of selected) {
    if (Date.now() - started > RUN_BUDGET_MS) {
      results.push({ m, verdict: 'NOT RUN' });
      console.log(`NOT RUN   ${m.id} (time budget spent)`);
      continue;
    }
    const path = join(SCRATCH, m.file);
    const original = readFileSync(path, 'utf8');
    const at = Date.now();
    try {
      writeFileSync(
        path,
        original.replace(m.find, () => m.replace),
      );
      const run = await runTests(m.tests, MUTANT_TIMEOUT_MS);
      // A timeout counts as killed: the tests did not pass against the mutant.
      const verdict = run.passed ? 'SURVIVED' : 'KILLED';
      results.push({ m, verdict });
      console.log(
        `${verdict.padEnd(9)} ${m.id} (${m.file}; ${seconds(Date.now() - at)}${run.timedOut ? ', timed out' : ''})`,
      );
    } finally {
      writeFileSync(path, original);
    }
  }

  const judged = results.filter((r) => r.verdict !== 'NOT RUN');
  const killed = judged.filter((r) => r.verdict === 'KILLED').length;
  const survivors = judged.filter((r) => r.verdict === 'SURVIVED');
  const percent = judged.length === 0 ? 0 : (100 * killed) / judged.length;
  console.log('');
  if (survivors.length > 0) console.log(`Survivors: ${survivors.map((r) => r.m.id).join(', ')}`);
  const notRun = results.length - judged.length;
  console.log(
    `Mutation score: ${killed}/${judged.length} killed (${percent.toFixed(1)}%)${notRun ? `, ${notRun} not run` : ''}, in ${seconds(Date.now() - started)}`,
  );
}

await main();
