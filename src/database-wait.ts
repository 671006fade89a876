import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from './domain/errors.ts';

/** The longest pause between two tries: a database back up is noticed within about this long. */
const MAX_DELAY_MS = 1_000;
/** A process still waiting says so again this often, not at every try. */
const LOG_EVERY_MS = 30_000;

/**
 * Runs `start` (migrate, seed, load the sandbox clocks) until the database lets it finish: a process
 * started while the database is down waits for it, trying again with a growing pause of at most a
 * second, and logs once when it starts waiting and then once every 30 seconds (docs/operations.md).
 * Any other failure (a wrong password, a broken migration) ends the wait at once. `stopping` ends it
 * too (SIGTERM while waiting): it then resolves undefined.
 */
export async function whenDatabaseAnswers<T>(
  start: () => Promise<T>,
  options: {
    log: (message: string) => void;
    stopping?: () => boolean;
    maxDelayMs?: number;
    /** Called once, when the first try failed and the waiting begins (`serve` then listens, to say it is not ready). */
    onWaiting?: () => Promise<void>;
  },
): Promise<T | undefined> {
  const maxDelayMs = options.maxDelayMs ?? MAX_DELAY_MS;
  let delayMs = 50;
  let tries = 0;
  let loggedAt = -Infinity;
  for (;;) {
    if (options.stopping?.()) return undefined;
    try {
      const result = await start();
      if (tries > 0) options.log(`the database is ready after ${tries} failed tries; starting`);
      return result;
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE')) throw err;
      if (tries++ === 0) await options.onWaiting?.();
      if (Date.now() - loggedAt >= LOG_EVERY_MS) {
        loggedAt = Date.now();
        options.log(
          `waiting for the database (${causeOf(err)}): trying again every ${maxDelayMs / 1000} s at most (${tries} tries so far)`,
        );
      }
      await sleep(delayMs);
      delayMs = Math.min(maxDelayMs, delayMs * 2);
    }
  }
}

/** What the driver said, in a few words: its code or the first line of its message. */
export function causeOf(err: unknown): string {
  type Described = { code?: unknown; message?: unknown };
  const cause: Described = (err as { cause?: Described }).cause ?? (err as Described);
  if (typeof cause.code === 'string' && cause.code !== '') return cause.code;
  return typeof cause.message === 'string' ? cause.message.split('\n')[0]!.slice(0, 120) : 'unknown';
}
