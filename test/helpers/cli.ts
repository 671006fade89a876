import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_PASSWORD_HASH_COST } from './test-settings.ts';

/** The `opentill` command: `node bin/opentill.js ...` in a child process, or its entry in this one. */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'opentill.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** This process's environment with `env` over it (the tests' password cost below both), less DATABASE_URL and RATES_FILE unless `env` sets them. */
function commandEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST, ...process.env, ...env };
  for (const name of ['DATABASE_URL', 'RATES_FILE']) if (!(name in env)) delete merged[name];
  return merged;
}

/**
 * Starts the command with `env` over this process's environment, in a child process as a user runs it.
 * DATABASE_URL and RATES_FILE are dropped unless `env` sets them, and so are the test runner's loader
 * flags: the child sees only what the test means it to. For what lasts (serve, worker) or must be a
 * process of its own (signals, exit on an old Node).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; exited: Promise<CliResult> } {
  const childEnv = commandEnv(env);
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

/** Runs the command to its end in a child process. Not a timed assertion: the guard only turns a hung command into a failure. */
export async function cliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { child, exited } = spawnCli(args, env);
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    return await exited;
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Runs a command that ends (everything but serve and worker) to its end in this process, through the
 * binary's own entry (runCli) with its own environment and output: what a child process would print
 * and exit with, without a Node start and the application's load for each (206 commands a run had
 * spent 160 core-seconds on that). What escapes the command is printed as the binary would, a stack.
 */
export async function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { runCli } = await import('../../src/cli/program.ts');
  let stdout = '';
  let stderr = '';
  const io = {
    env: commandEnv(env),
    out: (text: string) => void (stdout += text),
    err: (text: string) => void (stderr += text),
    exitCode: 0,
  };
  try {
    const code = await runCli(args, io);
    return { code, signal: null, stdout, stderr };
  } catch (err) {
    return { code: 1, signal: null, stdout, stderr: `${stderr}${(err as Error).stack ?? String(err)}\n` };
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

/** The CLI with one environment: `run` as a user types it, `json` with --json, its success checked and its JSON parsed. */
export function cliWith(env: Record<string, string>) {
  const run = (...args: string[]) => cli(args, env);
  const json = async (...args: string[]): Promise<any> => {
    const result = await run(...args, '--json');
    succeeded(result);
    return parseJson(result);
  };
  return { run, json };
}
