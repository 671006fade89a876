/** See wal-index.mjs. `lent`: a descriptor of the -shm file another reader owns (never closed by this one). */
export function walIndexReader(
  file: string,
  lent?: number,
): {
  /** Committed WAL frames not yet in the database file; Infinity when the WAL index cannot be read. */
  waiting(): number;
  /** The -shm file's descriptor, opened if need be; undefined while there is none. */
  fd(): number | undefined;
  /** Closes the -shm file if this reader opened it: only once no connection of this process has the database open. */
  close(): void;
};
