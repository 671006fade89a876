/**
 * What a process loads once and shares (a bundle, a library's app): the first call starts it, later calls
 * get the same promise, and a load that failed is tried again by the next call rather than kept.
 */
export function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
