import { AsyncLocalStorage } from 'node:async_hooks';
import { processEnvironment } from '../config.ts';
import { AppError } from '../domain/errors.ts';

/**
 * Where a command reads its settings and writes its output, and the exit code it leaves. The binary
 * runs on the process's own; `runCli` gives one run its own (the tests run most commands in their
 * own process, without paying a Node start and the application's load for each).
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  exitCode: number;
}

const runs = new AsyncLocalStorage<CliIo>();
const processIo: CliIo = {
  env: processEnvironment(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exitCode: 0,
};

/** The running command's settings and streams. */
export const io = (): CliIo => runs.getStore() ?? processIo;

/** Runs `fn` with `given` as the commands' settings and streams. */
export const withIo = <T>(given: CliIo, fn: () => Promise<T>): Promise<T> => runs.run(given, fn);

/** Ends a command with an exit code; `runCli` catches it (the binary then exits at once, as it always has). */
export class CliExit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** Readable text for people, JSON for scripts (--json), and a non-zero exit with a reason on failure. */
export function print(json: boolean, value: unknown, text: () => string) {
  io().out(json ? JSON.stringify(value, null, 2) + '\n' : text() + '\n');
}

export function fail(message: string, json = false): never {
  if (json) io().out(JSON.stringify({ error: 'FAILED', message }) + '\n');
  io().err(`opentill: ${message}\n`);
  throw new CliExit(1);
}

export async function run(json: boolean, action: () => Promise<void>) {
  try {
    await action();
  } catch (err) {
    if (err instanceof CliExit) throw err;
    if (err instanceof AppError) fail(withCause(err), json);
    // Anything else (an unreachable database, a failed migration): one line with the reason, not a stack trace.
    const e = err as { message?: string; code?: string };
    fail(`unexpected error${e?.code ? ` (${e.code})` : ''}: ${e?.message || String(err)}`, json);
  }
}

/** An error's message, and for an outage what the driver said (the operator's to read, unlike an API client): `… (connect ECONNREFUSED 127.0.0.1:5432)`. */
function withCause(err: AppError): string {
  const cause = (err.cause as { message?: unknown } | undefined)?.message;
  return typeof cause === 'string' && cause !== '' ? `${err.message} (${cause.split('\n')[0]})` : err.message;
}
