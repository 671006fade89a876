import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/store/database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';
import { startCheckpointer, WRITER_CHECKPOINT_PAGES } from '../../src/store/sqlite-checkpointer.ts';

/**
 * The WAL index (the -shm file) as SQLite keeps it: the last committed frame (mxFrame, at byte 16 of
 * the header) and how far the WAL has been copied into the database file (nBackfill, at byte 96).
 */
function walIndex(file: string): { mxFrame: number; nBackfill: number } {
  const shm = readFileSync(`${file}-shm`);
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

/** The writer's `wal_autocheckpoint`: 1,000 (SQLite's) until the thread starts, WRITER_CHECKPOINT_PAGES after. */
async function autocheckpointOf(database: Database): Promise<number> {
  return (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.kysely)).rows[0]!
    .wal_autocheckpoint;
}

/** A migrated database file, closed: the next open finds it as a restarted server does. */
async function migratedFile(file: string): Promise<string> {
  const created = openSqlite(file);
  await created.migrate();
  await created.close();
  return file;
}

describe('the SQLite checkpointer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-checkpointer-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('committed pages are copied into the database file by the thread, while the writer only holds a backstop', async () => {
    const file = join(dir, 'copied.db');
    const database = openSqlite(file);
    try {
      await database.migrate();
      const autocheckpoint = () => autocheckpointOf(database);
      assert.equal(
        await autocheckpoint(),
        1_000,
        'no thread before the first commit: the writer checkpoints as SQLite does',
      );
      for (let i = 0; i < 20; i++) {
        await database.transaction(async (trx) => {
          await sql`insert into invoice_counters (vendor_id, environment, last_number) values (${`TC-VE_${i}`}, 'sandbox', ${i})`.execute(
            trx,
          );
        });
      }
      assert.equal(await autocheckpoint(), WRITER_CHECKPOINT_PAGES, 'the first commit started the thread');
      // Far fewer frames than the writer's backstop: only the thread can have copied them.
      let index = walIndex(file);
      assert.ok(index.mxFrame > 0 && index.mxFrame < WRITER_CHECKPOINT_PAGES, `frames in the WAL: ${index.mxFrame}`);
      const deadline = Date.now() + 10_000;
      while (index.nBackfill !== index.mxFrame && Date.now() < deadline) {
        await sleep(20);
        index = walIndex(file);
      }
      assert.equal(index.nBackfill, index.mxFrame, 'every committed frame is in the database file');
      const rows = await sql<{ n: number }>`select count(*) as n from invoice_counters`.execute(database.kysely);
      assert.equal(rows.rows[0]!.n, 20);
    } finally {
      await database.close();
    }
  });

  test('closing the store ends the thread, leaves no descriptor open, and the writer, closing last, leaves only the database file', async () => {
    const sub = mkdtempSync(join(dir, 'closed-'));
    const file = join(sub, 'closed.db');
    const descriptors = readdirSync('/proc/self/fd').length;
    const database = openSqlite(file);
    await database.migrate();
    await database.transaction(async (trx) => {
      await sql`insert into invoice_counters (vendor_id, environment, last_number) values ('TC-VE_closed', 'sandbox', 7)`.execute(
        trx,
      );
    });
    // The thread has read the WAL index by the time every frame is copied.
    const deadline = Date.now() + 10_000;
    while (walIndex(file).nBackfill !== walIndex(file).mxFrame && Date.now() < deadline) await sleep(20);
    await database.close();
    assert.deepEqual(readdirSync(sub), ['closed.db']);
    assert.equal(
      readdirSync('/proc/self/fd').length,
      descriptors,
      'the thread and the connections closed every file they opened',
    );
    const again = openSqlite(file);
    try {
      const rows = await sql<{ last_number: number }>`select last_number from invoice_counters`.execute(again.kysely);
      assert.deepEqual(
        rows.rows.map((r) => Number(r.last_number)),
        [7],
      );
    } finally {
      await again.close();
    }
  });

  test('the process keeps its locks on the WAL index while the thread starts, runs and stops, until the store has closed', async () => {
    // POSIX locks belong to the process: closing any descriptor of the -shm file drops SQLite's lock on it,
    // and another process then takes itself for the only user and truncates the index under this writer.
    const file = await migratedFile(join(dir, 'locks.db'));
    const database = openSqlite(file);
    const ownLocks = () => {
      const inode = statSync(`${file}-shm`).ino;
      return readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((line) => new RegExp(String.raw`\bPOSIX\b.*\b${process.pid} [0-9a-f]+:[0-9a-f]+:${inode} `).test(line))
        .length;
    };
    try {
      await database.transaction(async (trx) => {
        await sql`select count(*) from invoice_counters`.execute(trx);
      });
      assert.ok(ownLocks() > 0, 'SQLite holds its lock on the WAL index');
      for (let i = 0; i < 5; i++)
        await database.transaction(async (trx) => {
          await sql`insert into invoice_counters (vendor_id, environment, last_number) values (${`TC-VE_lock${i}`}, 'sandbox', 1)`.execute(
            trx,
          );
        });
      // (Not read through walIndex(): opening and closing the -shm file here would itself drop the locks.)
      assert.equal(await autocheckpointOf(database), WRITER_CHECKPOINT_PAGES, 'the thread started');
      await sleep(1_500); // past the thread's idle second: it has checkpointed what waited
      assert.ok(ownLocks() > 0, 'still held once the thread has started and checkpointed');
    } finally {
      await database.close();
    }
  });

  test('a store closed before any query of its own (opened, then closed) still closes every connection', async () => {
    const sub = mkdtempSync(join(dir, 'unused-'));
    const file = await migratedFile(join(sub, 'unused.db'));
    const descriptors = readdirSync('/proc/self/fd').length;
    const database = openSqlite(file);
    await database.close();
    assert.equal(readdirSync('/proc/self/fd').length, descriptors, 'the writer was closed too');
    assert.deepEqual(readdirSync(sub), ['unused.db']);
  });

  test('a commit that wrote nothing (the worker claiming while nothing is due) starts no thread; one that wrote does', async () => {
    const file = await migratedFile(join(dir, 'idle.db'));
    const database = openSqlite(file);
    const autocheckpoint = () => autocheckpointOf(database);
    try {
      for (let i = 0; i < 3; i++)
        await database.transaction(async (trx) => {
          await sql`select count(*) from invoice_counters`.execute(trx);
        });
      assert.equal(await autocheckpoint(), 1_000, 'no thread: the writer keeps SQLite’s default');
      await database.transaction(async (trx) => {
        await sql`insert into invoice_counters (vendor_id, environment, last_number) values ('TC-VE_idle', 'sandbox', 1)`.execute(
          trx,
        );
      });
      assert.equal(await autocheckpoint(), WRITER_CHECKPOINT_PAGES, 'the write started the thread');
    } finally {
      await database.close();
    }
  });

  test('the thread starts with the first commit, not before: a store that was only opened and read holds none', async () => {
    const settings: number[] = [];
    const checkpointer = startCheckpointer(join(dir, 'lazy.db'), (pages) => settings.push(pages), {
      thread: new URL('file:///nonexistent/opentill-checkpoint-thread.mjs'),
    });
    await sleep(200);
    assert.deepEqual(settings, [], 'no thread was started, so none failed');
    await checkpointer.stop();
    checkpointer.committed(); // after stop: no thread is started
    await sleep(200);
    assert.deepEqual(settings, []);
  });

  test('a thread that cannot run hands checkpointing back to the writer, at SQLite’s default', async () => {
    const settings: number[] = [];
    const checkpointer = startCheckpointer(join(dir, 'never.db'), (pages) => settings.push(pages), {
      thread: new URL('file:///nonexistent/opentill-checkpoint-thread.mjs'),
    });
    checkpointer.committed();
    await checkpointer.stop();
    const deadline = Date.now() + 5_000;
    while (settings.length < 2 && Date.now() < deadline) await sleep(10);
    assert.deepEqual(settings, [WRITER_CHECKPOINT_PAGES, 1_000]);
    checkpointer.committed(); // announced to no thread: nothing happens, nothing throws
  });
});
