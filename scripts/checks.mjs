// `npm test`'s checks beside the tests: the type check, ESLint, oxlint's type-aware rules and Prettier's check, all at once
// (each alone leaves a core idle much of its time). Each one's output is printed whole when it ends;
// the checks fail if any does. `npm run typecheck` and `npm run lint` run them one by one.
// The type check is TypeScript 7's native compiler (the package alias typescript-7): the same checks in
// a quarter of the time. TypeScript 5.9 stays beside it for typescript-eslint (which has no TS 7 API
// yet) and for the build; both install a `tsc` binary, so each is called by its path. The type-aware lint
// rules are oxlint's (.oxlintrc.json), run by tsgolint on TypeScript 7 too.
// OPENTILL_CHECKS_NICE=1 (scripts/test.mjs --checks): at the lowest priority, it and the checks it
// starts take only the CPU the tests leave idle.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

if (process.env.OPENTILL_CHECKS_NICE === '1') setPriority(19);

const CHECKS = [
  // One thread: beside the tests every core is busy anyway, and its parallel checkers repeat work
  // (7 core-seconds single-threaded against 10.5-13.6, in about the same 6-7 s alone).
  ['type check', 'node_modules/typescript-7/bin/tsc', ['--noEmit', '-p', '.', '--singleThreaded']],
  ['ESLint', 'eslint', ['.']],
  ['oxlint', 'oxlint', ['--type-aware']],
  ['Prettier', 'prettier', ['--check', '.']],
];

const started = performance.now();
const results = await Promise.all(
  CHECKS.map(
    ([name, bin, args]) =>
      new Promise((resolve) => {
        const child = spawn(bin.includes('/') ? bin : `node_modules/.bin/${bin}`, args, {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => {
          process.stdout.write(`${name}: FAILED\n${error.message}\n`);
          resolve({ name, code: 1 });
        });
        child.on('close', (code) => {
          process.stdout.write(`${name}: ${code === 0 ? 'ok' : 'FAILED'}\n${code === 0 ? '' : output}`);
          resolve({ name, code });
        });
      }),
  ),
);
const failed = results.filter(({ code }) => code !== 0).map(({ name }) => name);
console.log(
  `checks: ${failed.length ? `${failed.join(', ')} FAILED` : 'all passed'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exitCode = failed.length ? 1 : 0;
