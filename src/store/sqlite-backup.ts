import { existsSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { invalidInput, invalidState } from '../domain/errors.ts';
import { createPrivateFile } from './sqlite-database.ts';
import { MIGRATION_NAMES } from './migrations/index.ts';

/**
 * `opentill backup` and `opentill restore` for the embedded store (docs/decisions.md §11, "Backup").
 * A backup is SQLite's online backup: a consistent copy of the last committed state, taken while the
 * server keeps serving and writing. A restore puts a checked backup in the database's place while no
 * process has the database open, and keeps the database it replaces beside it.
 */

/**
 * Copies the database `from` into the new file `to` with SQLite's online backup, the file made
 * readable by its owner only before SQLite writes into it (a backup holds everything), and checks the
 * copy. Nothing is left at `to` if the copy fails.
 */
async function copyChecked(from: string, to: string): Promise<{ migrations: number }> {
  createPrivateFile(to);
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(to);
  } catch (err) {
    rmSync(to, { force: true });
    throw err;
  } finally {
    source.close();
  }
  return check(to);
}

export interface BackupReport {
  file: string;
  bytes: number;
  migrations: number;
}

export async function backupSqlite(database: string, target: string): Promise<BackupReport> {
  if (!existsSync(database)) throw invalidState(`There is no database at ${database}.`);
  if (existsSync(target)) throw invalidInput(`${target} exists already; name a new file (a backup never overwrites one).`);
  const { migrations } = await copyChecked(database, target);
  return { file: target, bytes: statSync(target).size, migrations };
}

/** Whether a file is a whole opentill database this version can run: intact, migrated, by no newer version. */
function check(file: string): { migrations: number } {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch {
    throw invalidInput(`${file} is not a SQLite database.`);
  }
  try {
    let integrity: string;
    let ran: string[];
    try {
      integrity = db.pragma('integrity_check', { simple: true }) as string;
      ran = (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name);
    } catch {
      throw invalidInput(`${file} is not an opentill database.`);
    }
    if (integrity !== 'ok') throw invalidInput(`${file} is damaged (integrity check: ${integrity}).`);
    const unknown = ran.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length) throw invalidInput(`${file} was written by a newer opentill (migrations ${unknown.join(', ')}); restore it with that version.`);
    return { migrations: ran.length };
  } finally {
    db.close();
  }
}

/** Processes that have the file open, read from /proc (Linux); an empty list where /proc is absent. */
function processesUsing(file: string): number[] {
  if (!existsSync('/proc/self/fd')) return [];
  const wanted = new Set([file, `${file}-wal`, `${file}-shm`]);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or not ours to look at
    }
    if (
      fds.some((fd) => {
        try {
          return wanted.has(readlinkSync(`/proc/${entry}/fd/${fd}`));
        } catch {
          return false;
        }
      })
    )
      pids.push(Number(entry));
  }
  return pids;
}

export interface RestoreReport {
  file: string;
  /** Where the database that was there before now is, if there was one. */
  previous: string | null;
  migrations: number;
}

export async function restoreSqlite(backup: string, database: string, now: Date): Promise<RestoreReport> {
  const from = resolve(backup);
  const to = resolve(database);
  const { migrations } = check(from);
  const users = processesUsing(existsSync(to) ? realpathSync(to) : to);
  if (users.length) throw invalidState(`The database is open in process ${users.join(', ')}; stop opentill (serve and worker) first.`);
  // Copied next to the database first, so that the step that replaces it is one rename on one file system.
  const staged = join(dirname(to), `.${basename(to)}.restoring`);
  rmSync(staged, { force: true });
  await copyChecked(from, staged);
  let previous: string | null = null;
  if (existsSync(to)) {
    previous = `${to}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(to, previous);
    // A write-ahead log beside the old file belongs to it, never to the restored one.
    for (const suffix of ['-wal', '-shm']) if (existsSync(`${to}${suffix}`)) renameSync(`${to}${suffix}`, `${previous}${suffix}`);
  }
  renameSync(staged, to);
  return { file: to, previous, migrations };
}
