// How many committed WAL frames of a SQLite file wait to be copied into the database file, read from the
// WAL index's header (https://www.sqlite.org/walformat.html: mxFrame at byte 16, nBackfill at byte 96, in
// the machine's byte order). Plain JavaScript: the checkpoint thread (checkpoint-thread.mjs) and the
// writer's side (sqlite-checkpointer.ts) both read it. Unknown (no -shm to read) counts as Infinity.
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

export function walIndexReader(file) {
  const header = Buffer.alloc(100);
  const readUInt32 =
    endianness() === 'LE' ? (offset) => header.readUInt32LE(offset) : (offset) => header.readUInt32BE(offset);
  let shm;
  return {
    waiting() {
      try {
        shm ??= openSync(`${file}-shm`, 'r');
        if (readSync(shm, header, 0, 100, 0) < 100) return Infinity;
      } catch {
        return Infinity;
      }
      const frames = readUInt32(16);
      const copied = readUInt32(96);
      return copied <= frames ? frames - copied : frames;
    },
    close() {
      if (shm !== undefined) closeSync(shm);
      shm = undefined;
    },
  };
}
