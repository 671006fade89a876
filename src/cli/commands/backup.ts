import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fail, print, run } from '../output.ts';
import { configOrFail } from '../with-services.ts';

/** The SQLite file both commands work on, or an exit saying why there is none. */
function sqliteFileOrFail(json: boolean, whyNotInMemory: string): string {
  const config = configOrFail(json);
  if (config.databaseUrl)
    fail('On PostgreSQL, back up with pg_dump and restore with pg_restore (README, "Backup").', json);
  if (config.sqliteFile === ':memory:') fail(whyNotInMemory, json);
  return config.sqliteFile;
}

/** `opentill backup <file>` and `opentill restore <file>`: the embedded store's online backup (docs/decisions.md §11). */
export function registerBackupCommands(program: Command) {
  program
    .command('backup <file>')
    .description(
      'copy the SQLite database to a new file, consistently, while opentill keeps serving; the file is readable by this account only, and never an existing file or a symbolic link',
    )
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const database = sqliteFileOrFail(!!opts.json, 'SQLITE_FILE=:memory: keeps nothing to back up.');
        const { backupSqlite } = await import('../../store/sqlite-backup.ts');
        const report = await backupSqlite(database, resolve(file));
        print(
          !!opts.json,
          report,
          () => `Backed up ${database} to ${report.file} (${report.bytes} bytes, readable by this account only).`,
        );
      }),
    );

  program
    .command('restore <file>')
    .description(
      'put a backup in place of the SQLite database (stop opentill first); the replaced database is kept beside it. Neither the backup nor the database may be a symbolic link',
    )
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const database = sqliteFileOrFail(!!opts.json, 'SQLITE_FILE=:memory: has no file to restore into.');
        const { restoreSqlite } = await import('../../store/sqlite-backup.ts');
        const report = await restoreSqlite(file, database, new Date());
        print(!!opts.json, report, () =>
          [
            `Restored ${resolve(file)} to ${report.file}.`,
            report.previous
              ? `The database it replaced is kept as ${report.previous}.`
              : 'There was no database there before.',
            'Start opentill again: it migrates the restored database if it is older than this version.',
          ].join('\n'),
        );
      }),
    );
}
