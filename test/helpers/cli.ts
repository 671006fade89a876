import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `opentill` command as a user runs it: `node bin/opentill.js ...` in a child process. */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'opentill.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts the command with `env` over this process's environment. DATABASE_URL and RATES_FILE are
 * dropped unless `env` sets them, and so are the test runner's loader flags: the child sees only
 * what the test means it to.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; exited: Promise<CliResult> } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of ['DATABASE_URL', 'RATES_FILE']) if (!(name in env)) delete childEnv[name];
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<CliResult>((done, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
  return { child, exited };
}

/** Runs the command to its end. Not a timed assertion: the guard only turns a hung command into a failure. */
export async function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { child, exited } = spawnCli(args, env);
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    return await exited;
  } finally {
    clearTimeout(guard);
  }
}

export function parseJson(result: CliResult): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    assert.fail(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

export function succeeded(result: CliResult) {
  assert.equal(result.code, 0, `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
}

export function failedWith(result: CliResult, message: RegExp) {
  assert.notEqual(result.code, 0, `expected a failure, got exit 0\nstdout:\n${result.stdout}`);
  assert.match(result.stderr, message);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}
