import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { restoreSqlite } from '../../src/store/sqlite-backup.ts';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * `opentill backup` and `opentill restore` on the embedded store (issue 16): a backup taken while the
 * server serves and writes is whole and consistent; a restore refuses while opentill has the
 * database open, refuses what it cannot run, and keeps the database it replaces. Neither writes
 * through a symbolic link or over a file that is there, and a backup is 0600 whatever the umask.
 */
describe('opentill backup and restore', () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-backup-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  const env = { OPENTILL_DATA_DIR: dataDir, OPENTILL_SECRET: SERVER_SECRET };
  const run = (...args: string[]) => cli(args, env);

  async function start() {
    const server = new ServerProcess(await freePort(), dataDir);
    await within(server.started(), 'the server start');
    return server;
  }
  async function stop(server: ServerProcess) {
    server.signal('SIGTERM');
    await within(server.exited, 'the server stop');
  }

  test('a backup taken while the server writes restores, once the server is stopped, to exactly that moment', async () => {
    const server = await start();
    const credential = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
    const api = (path: string, body?: unknown) =>
      fetch(`${server.url}/sandbox/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: credential, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const [tx] = (await (await api('/transactions/bob@example.com')).json()) as { id: string }[];

    // The server keeps writing while the backup runs.
    let writes = 0;
    let writing = true;
    let firstWrites!: () => void;
    const written = new Promise<void>((resolve) => (firstWrites = resolve));
    const writer = (async () => {
      while (writing) {
        assert.equal((await api(`/transaction/${tx!.id}`, { payload: `write ${++writes}` })).status, 200);
        if (writes === 3) firstWrites();
      }
    })();
    // The backup starts once writes are landing, and they go on while it runs (a failed write ends the wait).
    await Promise.race([written, writer]);
    const file = join(root, 'opentill.backup');
    const backup = await run('backup', file, '--json');
    writing = false;
    await writer;
    succeeded(backup);
    assert.equal(parseJson(backup).file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
    const inBackup = (
      new SQLite(file, { readonly: true }).prepare('select payload from transactions where id = ?').get(tx!.id) as {
        payload: string;
      }
    ).payload;
    assert.ok(writes > 0 && /^write \d+$/.test(inBackup), `one of the writes, whole (${inBackup} of ${writes})`);

    failedWith(await run('backup', file), /exists already; name a new file/);
    assert.equal((await api(`/transaction/${tx!.id}`, { payload: 'after the backup' })).status, 200);
    failedWith(await run('restore', file), new RegExp(`The database is open in process ${server.pid}; stop opentill`));

    await stop(server);
    const restored = await run('restore', file, '--json');
    succeeded(restored);
    const report = parseJson(restored);
    assert.ok(report.previous && existsSync(report.previous), 'the replaced database is kept');

    const again = await start();
    try {
      assert.doesNotMatch(again.stdout, /First start/, 'the restored store has its vendor: no demo seeded');
      const res = await fetch(`${again.url}/sandbox/v1/transaction/${tx!.id}`, {
        headers: { authorization: credential },
      });
      assert.equal(res.status, 200, 'the credential of the backup works');
      assert.equal(
        ((await res.json()) as { payload: string }).payload,
        inBackup,
        'the state of the backup, not what came after',
      );
    } finally {
      await stop(again);
    }
  });

  test('restore refuses what is not an opentill database, or one a newer opentill wrote', async () => {
    const junk = join(root, 'junk.db');
    writeFileSync(junk, 'not a database at all');
    failedWith(await run('restore', junk), /is not an opentill database|is not a SQLite database/);

    const file = join(root, 'newer.backup');
    succeeded(await run('backup', file));
    const db = new SQLite(file);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(
      '9999-from-the-future',
      new Date().toISOString(),
    );
    db.close();
    failedWith(await run('restore', file), /written by a newer opentill \(migrations 9999-from-the-future\)/);
  });

  /** A directory of its own for one test's files, beside the data directory. */
  const place = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    return dir;
  };
  const database = join(dataDir, 'opentill.db');

  test('backup refuses a dangling symbolic link, a link to a file and an existing file, and writes nothing through or over them', async () => {
    succeeded(await run('migrate'));
    const dir = place('refusals');
    const victim = join(dir, 'where-the-link-points.db');
    const dangling = join(dir, 'dangling.backup');
    symlinkSync(victim, dangling);
    failedWith(await run('backup', dangling), /dangling\.backup is a symbolic link; name a new file/);
    assert.equal(existsSync(victim), false, 'nothing was written where the link points');
    assert.ok(lstatSync(dangling).isSymbolicLink(), 'the link is left as it was');

    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'not a backup');
    const linked = join(dir, 'linked.backup');
    symlinkSync(precious, linked);
    failedWith(await run('backup', linked), /linked\.backup is a symbolic link; name a new file/);
    assert.equal(readFileSync(precious, 'utf8'), 'not a backup');

    failedWith(await run('backup', precious), /precious\.txt exists already; name a new file/);
    assert.equal(readFileSync(precious, 'utf8'), 'not a backup');
    assert.deepEqual(
      readdirSync(dir).sort(),
      ['dangling.backup', 'linked.backup', 'precious.txt'],
      'no copy left behind',
    );
  });

  test('a backup is readable by its owner only even under umask 000, and leaves nothing else beside it', async () => {
    succeeded(await run('migrate'));
    const dir = place('umask');
    const file = join(dir, 'open.backup');
    const before = process.umask(0o000);
    let result;
    try {
      result = await run('backup', file);
    } finally {
      process.umask(before);
    }
    succeeded(result);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['open.backup'], 'no staging directory or write-ahead log left');
  });

  test('restore refuses a backup that is a symbolic link, and a database path that is one, changing nothing', async () => {
    succeeded(await run('migrate'));
    const dir = place('restore-links');
    const file = join(dir, 'good.backup');
    succeeded(await run('backup', file));
    const link = join(dir, 'link.backup');
    symlinkSync(file, link);
    const databaseBefore = readFileSync(database);
    failedWith(await run('restore', link), /link\.backup is a symbolic link; name the backup file itself/);
    assert.deepEqual(readFileSync(database), databaseBefore, 'the database is untouched');

    // SQLITE_FILE naming a link, to a file or to nowhere: the restore would replace the link, or write where it points.
    const elsewhere = join(dir, 'elsewhere.db');
    writeFileSync(elsewhere, 'someone else');
    for (const [name, target] of [
      ['to-a-file.db', elsewhere],
      ['to-nowhere.db', join(dir, 'nowhere.db')],
    ] as const) {
      const sqliteFile = join(dir, name);
      symlinkSync(target, sqliteFile);
      failedWith(
        await cli(['restore', file], { ...env, SQLITE_FILE: sqliteFile }),
        /is a symbolic link; point SQLITE_FILE at the file itself/,
      );
      assert.ok(lstatSync(sqliteFile).isSymbolicLink());
    }
    assert.equal(readFileSync(elsewhere, 'utf8'), 'someone else');
    assert.equal(existsSync(join(dir, 'nowhere.db')), false);
  });

  test('restore never replaces or writes through what is at the name the replaced database is kept under', async () => {
    succeeded(await run('migrate'));
    const dir = place('restore-kept');
    const file = join(dir, 'good.backup');
    succeeded(await run('backup', file));
    const now = new Date('2030-01-02T03:04:05.678Z');
    const kept = `${database}.before-restore-2030-01-02T03-04-05-678Z`;
    const databaseBefore = readFileSync(database);
    const victim = join(dir, 'victim');
    for (const [suffix, prepare] of [
      ['', () => writeFileSync(kept, 'an older keepsake')],
      ['', () => symlinkSync(victim, kept)],
      ['-wal', () => symlinkSync(victim, `${kept}-wal`)],
    ] as const) {
      prepare();
      // The database has a -wal while opentill has it open; one left behind is moved aside as well.
      if (suffix) writeFileSync(`${database}-wal`, '');
      await assert.rejects(
        restoreSqlite(file, database, now),
        new RegExp(`before-restore-2030-01-02T03-04-05-678Z${suffix} exists already; move it away`),
      );
      assert.deepEqual(readFileSync(database), databaseBefore, 'the database is where it was');
      assert.equal(existsSync(victim), false, 'nothing written where a link points');
      rmSync(`${kept}${suffix}`);
      rmSync(`${database}-wal`, { force: true });
    }
    const restored = await restoreSqlite(file, database, now);
    assert.equal(restored.previous, kept);
    assert.deepEqual(readFileSync(kept), databaseBefore, 'the replaced database is kept');
    assert.equal(statSync(database).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(dataDir).filter((name) => name.startsWith('.')),
      [],
      'no staging directory left beside the database',
    );
  });

  test('on PostgreSQL both point to pg_dump and pg_restore', async () => {
    for (const command of ['backup', 'restore']) {
      failedWith(
        await cli([command, join(root, 'x')], { ...env, DATABASE_URL: 'postgres://127.0.0.1:5432/test' }),
        /back up with pg_dump/,
      );
    }
  });
});
