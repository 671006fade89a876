import { AppError } from '../domain/errors.ts';

/** Readable text for people, JSON for scripts (--json), and a non-zero exit with a reason on failure. */
export function print(json: boolean, value: unknown, text: () => string) {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : text() + '\n');
}

export function fail(message: string, json = false): never {
  if (json) process.stdout.write(JSON.stringify({ error: 'FAILED', message }) + '\n');
  process.stderr.write(`opentill: ${message}\n`);
  process.exit(1);
}

export async function run(json: boolean, action: () => Promise<void>) {
  try {
    await action();
  } catch (err) {
    if (err instanceof AppError) fail(err.message, json);
    // Anything else (an unreachable database, a failed migration): one line with the reason, not a stack trace.
    const e = err as { message?: string; code?: string };
    fail(`unexpected error${e?.code ? ` (${e.code})` : ''}: ${e?.message || String(err)}`, json);
  }
}
