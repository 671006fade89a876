/**
 * One-time messages between a POST and the page its redirect opens (a new credential's secret):
 * kept in this process's memory for a minute, keyed by the panel session, and gone once read. A
 * reload of the page after the redirect shows nothing and creates nothing.
 */
export function flashes(now: () => number = Date.now, ttlMs = 60_000) {
  const store = new Map<string, { value: string; until: number }>();
  const sweep = () => {
    const t = now();
    for (const [k, v] of store) if (v.until <= t) store.delete(k);
  };
  return {
    put(session: string, value: string) {
      sweep();
      store.set(session, { value, until: now() + ttlMs });
    },
    take(session: string): string | undefined {
      const found = store.get(session);
      store.delete(session);
      return found && found.until > now() ? found.value : undefined;
    },
  };
}
