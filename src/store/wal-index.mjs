// How many committed WAL frames of a SQLite file wait to be copied into the database file, read from the
// WAL index's header (https://www.sqlite.org/walformat.html: mxFrame at byte 16, nBackfill at byte 96, in
// the machine's byte order). Plain JavaScript: the checkpoint thread (checkpoint-thread.mjs) and the
// writer's side (sqlite-checkpointer.ts) both read it. Unknown (no -shm to read) counts as Infinity.
//
// The descriptor of the -shm file must stay open while any connection of this process has the database
// open: POSIX locks belong to the process, and closing any descriptor of a file drops all of them, SQLite's
// own lock on the WAL index among them. Another process would then take itself for the only user and
// truncate the index under this one's writer (SIGBUS). So the writer's side opens it once, lends it to the
// thread (`fd`), and closes it only after the database's connections have closed.
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

export function walIndexReader(file, lent) {
  const header = Buffer.alloc(100);
  const readUInt32 =
    endianness() === 'LE' ? (offset) => header.readUInt32LE(offset) : (offset) => header.readUInt32BE(offset);
  let shm = lent;
  const open = () => {
    try {
      shm ??= openSync(`${file}-shm`, 'r');
    } catch {
      // Not there yet: Infinity below, and opened at the next call.
    }
    return shm;
  };
  return {
    waiting() {
      try {
        if (open() === undefined || readSync(shm, header, 0, 100, 0) < 100) return Infinity;
      } catch {
        return Infinity;
      }
      const frames = readUInt32(16);
      const copied = readUInt32(96);
      return copied <= frames ? frames - copied : frames;
    },
    fd: open,
    close() {
      if (lent === undefined && shm !== undefined) closeSync(shm);
      shm = undefined;
    },
  };
}
