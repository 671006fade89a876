/** See wal-index.mjs. */
export function walIndexReader(file: string): {
  /** Committed WAL frames not yet in the database file; Infinity when the WAL index cannot be read. */
  waiting(): number;
  /** Closes the -shm file, if it was opened. */
  close(): void;
};
