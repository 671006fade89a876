// The SQLite checkpointer's thread (sqlite-checkpointer.ts): its own connection to the database file
// copies committed pages from the WAL into the database while the writer goes on writing. A PASSIVE
// checkpoint never waits for a lock, and the writer and readers go on while it runs.
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { file, signals, idleMs, pages } = workerData;
const COMMITS = 0;
const STOP = 1;
const stopping = () => Atomics.load(signals, STOP) !== 0;
const db = new SQLite(file, { fileMustExist: true });

// How many committed WAL frames are not yet in the database file, from the WAL index's header
// (https://www.sqlite.org/walformat.html: mxFrame at byte 16, nBackfill at byte 96, in the machine's
// byte order). Unknown (no -shm to read) counts as enough to checkpoint.
const header = Buffer.alloc(100);
const readUInt32 =
  endianness() === 'LE' ? (offset) => header.readUInt32LE(offset) : (offset) => header.readUInt32BE(offset);
let shm;
function pending() {
  try {
    shm ??= openSync(`${file}-shm`, 'r');
    if (readSync(shm, header, 0, 100, 0) < 100) return Infinity;
  } catch {
    return Infinity;
  }
  const frames = readUInt32(16);
  const copied = readUInt32(96);
  return copied <= frames ? frames - copied : frames;
}

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
    const waiting = pending();
    if (waiting >= pages || (!woken && waiting > 0)) checkpoint();
  }
} finally {
  // Its own files closed, as the store's close expects of every connection.
  if (shm !== undefined) closeSync(shm);
  db.close();
}
