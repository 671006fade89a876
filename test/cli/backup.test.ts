import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * `opentill backup` and `opentill restore` on the embedded store (issue 16): a backup taken while the
 * server serves and writes is whole and consistent; a restore refuses while opentill has the
 * database open, refuses what it cannot run, and keeps the database it replaces.
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
    const writer = (async () => {
      while (writing) assert.equal((await api(`/transaction/${tx!.id}`, { payload: `write ${++writes}` })).status, 200);
    })();
    const file = join(root, 'opentill.backup');
    const backup = await run('backup', file, '--json');
    writing = false;
    await writer;
    succeeded(backup);
    assert.equal(parseJson(backup).file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
    const inBackup = (new SQLite(file, { readonly: true }).prepare('select payload from transactions where id = ?').get(tx!.id) as { payload: string }).payload;
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
      const res = await fetch(`${again.url}/sandbox/v1/transaction/${tx!.id}`, { headers: { authorization: credential } });
      assert.equal(res.status, 200, 'the credential of the backup works');
      assert.equal(((await res.json()) as { payload: string }).payload, inBackup, 'the state of the backup, not what came after');
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
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999-from-the-future', new Date().toISOString());
    db.close();
    failedWith(await run('restore', file), /written by a newer opentill \(migrations 9999-from-the-future\)/);
  });

  test('on PostgreSQL both point to pg_dump and pg_restore', async () => {
    for (const command of ['backup', 'restore']) {
      failedWith(await cli([command, join(root, 'x')], { ...env, DATABASE_URL: 'postgres://127.0.0.1:5432/test' }), /back up with pg_dump/);
    }
  });
});
