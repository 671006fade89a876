/**
 * The log of failures that repeat (docs/operations.md, "Logs"): the same failure (same route and
 * error code, or the same worker step) is written in full, stack included, once per interval, and
 * only counted otherwise; when an interval ends, one line says how many more there were. An outage
 * that fails ten thousand requests writes a few lines, not ten thousand stack traces, to a disk that
 * may be the very thing that is full.
 */
export interface FailureLine {
  message: string;
  /** `err` (with its stack) on the first line of an interval; `repeated` on the summary line. */
  details: Record<string, unknown>;
}

export const FAILURE_LOG_INTERVAL_MS = 60_000;

export function repeatedFailures(
  write: (line: FailureLine) => void,
  options: { intervalMs?: number; now?: () => number } = {},
) {
  const intervalMs = options.intervalMs ?? FAILURE_LOG_INTERVAL_MS;
  const now = options.now ?? Date.now;
  /** Each failure seen in its current interval: when that began, and how many more came since. */
  const seen = new Map<string, { since: number; more: number }>();

  /** Writes the count of each failure whose interval has ended, and forgets it: its next occurrence is written in full again. */
  const flush = (all = false) => {
    const at = now();
    for (const [message, entry] of seen) {
      if (!all && at - entry.since < intervalMs) continue;
      seen.delete(message);
      if (entry.more > 0)
        write({ message, details: { repeated: entry.more, seconds: Math.round((at - entry.since) / 1000) } });
    }
  };
  const timer = setInterval(flush, intervalMs).unref();

  return {
    /** One failure: written now if it is the first of its kind in the interval, else counted. */
    report(message: string, err: unknown, details: Record<string, unknown> = {}): void {
      const entry = seen.get(message);
      if (entry && now() - entry.since < intervalMs) {
        entry.more++;
        return;
      }
      if (entry) flush();
      seen.set(message, { since: now(), more: 0 });
      write({ message, details: { ...details, err } });
    },
    /** Writes what is still counted and stops the timer. */
    stop(): void {
      clearInterval(timer);
      flush(true);
    },
  };
}

export type RepeatedFailures = ReturnType<typeof repeatedFailures>;
