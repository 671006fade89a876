import type { ChangedTransaction, ChangePage } from './model.ts';

export interface ChangesOptions {
  /** How many changes one listing asks for (the server's default is 1000). */
  limit?: number;
  /** Keep polling once the feed is empty (default false: the loop ends). */
  watch?: boolean;
  /** With `watch`, the pause between listings of an empty feed (default 5000 ms). */
  pollIntervalMs?: number;
  /** Ends a watching loop (quietly) and aborts the call in flight. */
  signal?: AbortSignal;
}

interface Feed {
  list(limit: number | undefined, signal: AbortSignal | undefined): Promise<ChangePage>;
  mark(id: string, signal: AbortSignal | undefined): Promise<unknown>;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The feed as an async iterator. A change is marked processed after the `yield` returns, that is when
 * the consumer's loop body has finished with it and asks for the next one; a throw or a `break` in the
 * body closes the generator at the `yield`, so the mark below it never runs and the change stays in
 * the feed for the next run (at least once, never lost). An abort ends the loop quietly, after marking
 * the change whose body has finished (its mark is not aborted).
 */
export async function* changeFeed(
  feed: Feed,
  options: ChangesOptions,
): AsyncGenerator<ChangedTransaction, void, undefined> {
  const { limit, watch = false, pollIntervalMs = 5000, signal } = options;
  while (!signal?.aborted) {
    let page: ChangePage;
    try {
      page = await feed.list(limit, signal);
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    for (const change of page.changes) {
      yield change;
      await feed.mark(change.id, undefined);
      if (signal?.aborted) return;
    }
    if (page.more || (page.changes.length > 0 && watch)) continue;
    if (!watch) return;
    await pause(pollIntervalMs, signal);
  }
}
