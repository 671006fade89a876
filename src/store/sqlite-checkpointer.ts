import { Worker } from 'node:worker_threads';
import { walIndexReader } from './wal-index.mjs';

/** WAL pages after which the writer checkpoints by itself: only if the thread falls behind or is gone. */
export const WRITER_CHECKPOINT_PAGES = 10_000;
/**
 * WAL pages that wake the thread to checkpoint. Measured on a million renewals and on the write bench
 * (issue 15): after every commit, small API writes slowed (each checkpoint syncs the database file);
 * at SQLite's 1000, the million took as long as with no thread; 200 did best at both.
 */
const THREAD_CHECKPOINT_PAGES = 200;
/** SQLite's own default, which the writer returns to when the thread fails. */
const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1_000;
/** After this long without a commit the thread copies whatever is left (writes outside a transaction are not announced). */
const IDLE_MS = 1_000;
/** The shared signals' slots, as checkpoint-thread.mjs reads them. */
const COMMITS = 0;
const STOP = 1;

export interface Checkpointer {
  /** A transaction committed: the thread (started by the first) copies its pages into the database file. */
  committed(): void;
  /** Ends the thread and closes its connection (before the caller closes or removes the file). */
  stop(): Promise<void>;
  /** Closes the WAL index's file: only after every connection of the store has closed (wal-index.mjs says why). */
  release(): void;
}

/**
 * Checkpoints the WAL of a SQLite file from a thread of its own (checkpoint-thread.mjs), so the writer's
 * commits no longer stop to copy pages into the database file every thousand pages: on a million
 * renewals that copying was a seventh of the run, and the second core was idle meanwhile. Durability
 * is the same: each commit is still in the WAL, fsynced, before it returns; this only moves the later
 * copy. The writer keeps a backstop (`WRITER_CHECKPOINT_PAGES`) so the WAL stays bounded if the thread
 * falls behind, and goes back to checkpointing as SQLite does by default if the thread fails. The
 * thread checkpoints once THREAD_CHECKPOINT_PAGES WAL pages wait to be copied, or when the writes pause.
 * `writerCheckpointPages` sets the writer's threshold (the SQLite connection's `wal_autocheckpoint`).
 *
 * The thread starts with the first commit that leaves pages to copy, not with the store: a thread is a
 * V8 instance of its own, about 17 MB resident, which a server that has only read need not hold (the
 * worker's claims commit every few seconds, writing nothing while nothing is due; issue 38, docs/decisions.md
 * §43). Until then the writer keeps SQLite's default.
 */
export function startCheckpointer(
  file: string,
  writerCheckpointPages: (pages: number) => void,
  options: { thread?: URL } = {},
): Checkpointer {
  const signals = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  let worker: Worker | undefined;
  const index = walIndexReader(file);
  let exited = Promise.resolve();
  let failed = false;
  const start = () => {
    worker = new Worker(options.thread ?? new URL('./checkpoint-thread.mjs', import.meta.url), {
      workerData: { file, signals, idleMs: IDLE_MS, pages: THREAD_CHECKPOINT_PAGES, shmFd: index.fd() },
      // Plain JavaScript: not the parent's loaders (tsx under the tests), which would only slow its start.
      execArgv: [],
    });
    // Unreferenced: a database left open does not keep the process alive for the thread's sake.
    worker.unref();
    const thread = worker;
    exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    writerCheckpointPages(WRITER_CHECKPOINT_PAGES);
    worker.on('error', () => {
      // The thread could not open the file or checkpoint it: the writer checkpoints by itself again.
      failed = true;
      writerCheckpointPages(SQLITE_DEFAULT_CHECKPOINT_PAGES);
    });
  };
  return {
    committed() {
      if (failed || Atomics.load(signals, STOP) !== 0) return;
      if (!worker) {
        if (index.waiting() === 0) return;
        start();
      }
      Atomics.add(signals, COMMITS, 1);
      Atomics.notify(signals, COMMITS);
    },
    async stop() {
      Atomics.store(signals, STOP, 1);
      if (!worker) return;
      // Referenced again while it ends: a process whose last work is this close waits for it.
      worker.ref();
      Atomics.notify(signals, COMMITS);
      await exited;
    },
    release: () => index.close(),
  };
}
