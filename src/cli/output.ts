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
