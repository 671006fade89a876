// The SQLite checkpointer's thread (sqlite-checkpointer.ts): its own connection to the database file
// copies committed pages from the WAL into the database while the writer goes on writing. A PASSIVE
// checkpoint never waits for a lock, and the writer and readers go on while it runs.
import { workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { walIndexReader } from './wal-index.mjs';

const { file, signals, idleMs, pages, shmFd } = workerData;
const COMMITS = 0;
const STOP = 1;
const stopping = () => Atomics.load(signals, STOP) !== 0;
const db = new SQLite(file, { fileMustExist: true });

// The writer's side lends its descriptor of the -shm file, and closes it itself (wal-index.mjs says why).
const index = walIndexReader(file, shmFd);

// A checkpoint the disk refused (full, an I/O error) leaves the pages in the WAL, where they are safe:
// the thread tries again at its next turn instead of ending, so a disk that had space freed needs no restart.
function checkpoint() {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    if (!/^SQLITE_(FULL|IOERR|BUSY|LOCKED)/.test(err?.code ?? '')) throw err;
  }
}

let seen = Atomics.load(signals, COMMITS);
try {
  while (!stopping()) {
    // Woken by a commit, or after idleMs: a write made outside a transaction is not announced.
    const woken = Atomics.wait(signals, COMMITS, seen, idleMs) !== 'timed-out';
    if (stopping()) break;
    seen = Atomics.load(signals, COMMITS);
    // Once `pages` frames wait: each checkpoint syncs the database file, and one after every small
    // commit slowed those commits. When quiet, whatever is left.
    const waiting = index.waiting();
    if (waiting >= pages || (!woken && waiting > 0)) checkpoint();
  }
} finally {
  // Its own files closed, as the store's close expects of every connection.
  index.close();
  db.close();
}
