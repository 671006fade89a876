import {
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  closeSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { invalidInput, invalidState } from '../domain/errors.ts';
import { MIGRATION_NAMES } from './migrations/index.ts';

/**
 * `opentill backup` and `opentill restore` for the embedded store (docs/decisions.md §11, "Backup").
 * A backup is SQLite's online backup: a consistent copy of the last committed state, taken while the
 * server keeps serving and writing. A restore puts a checked backup in the database's place while no
 * process has the database open, and keeps the database it replaces beside it.
 *
 * Neither ever writes through a symbolic link or over a file that is there: a name someone else could
 * have prepared (a link to a file of theirs, or to where they can read) would otherwise receive the
 * whole database. Both copy into a fresh directory of their own first (0700, a name nobody could guess),
 * into a file made 0600 before SQLite opens it, and then give the checked copy its name in one step.
 */

/** What is at the path itself, a symbolic link not followed; undefined when nothing is. */
const entryAt = (path: string): Stats | undefined => lstatSync(path, { throwIfNoEntry: false });

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Codes of a file system that has no hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

const backupExists = (target: string) =>
  entryAt(target)?.isSymbolicLink()
    ? invalidInput(`${target} is a symbolic link; name a new file (a backup never writes through a link).`)
    : invalidInput(`${target} exists already; name a new file (a backup never overwrites one).`);

interface StagedCopy {
  file: string;
  migrations: number;
  /** Removes the staging directory and whatever is left in it. */
  remove(): void;
}

/**
 * Copies the database `from` with SQLite's online backup into a new directory beside `near`, and checks
 * the copy. The file is created 0600 whatever the umask (SQLite would create it 0644) and exclusively:
 * nothing at that name is followed or reused.
 */
async function stageCopy(from: string, near: string): Promise<StagedCopy> {
  mkdirSync(dirname(near), { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(join(dirname(near), '.opentill-copy-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const file = join(dir, 'copy.db');
  try {
    const fd = openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    try {
      fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
    const source = new SQLite(from, { readonly: true, fileMustExist: true });
    try {
      await source.backup(file);
    } finally {
      source.close();
    }
    return { file, remove, ...check(file) };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Gives the staged copy the name `target`, which must be free: a hard link, else (no hard links there) a copy to a new file. */
function publish(staged: string, target: string) {
  try {
    linkSync(staged, target);
    return;
  } catch (err) {
    if (errno(err) === 'EEXIST') throw backupExists(target);
    if (!NO_HARD_LINKS.has(errno(err) ?? '')) throw err;
  }
  try {
    // O_EXCL underneath: neither a file nor a link at the name is written to; the mode is the copy's, 0600.
    copyFileSync(staged, target, constants.COPYFILE_EXCL);
  } catch (err) {
    if (errno(err) === 'EEXIST') throw backupExists(target);
    rmSync(target, { force: true });
    throw err;
  }
}

export interface BackupReport {
  file: string;
  bytes: number;
  migrations: number;
}

export async function backupSqlite(database: string, target: string): Promise<BackupReport> {
  if (!existsSync(database)) throw invalidState(`There is no database at ${database}.`);
  if (entryAt(target)) throw backupExists(target);
  const staged = await stageCopy(database, target);
  try {
    publish(staged.file, target);
  } finally {
    staged.remove();
  }
  return { file: target, bytes: statSync(target).size, migrations: staged.migrations };
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
      ran = (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
        (r) => r.name,
      );
    } catch {
      throw invalidInput(`${file} is not an opentill database.`);
    }
    if (integrity !== 'ok') throw invalidInput(`${file} is damaged (integrity check: ${integrity}).`);
    const unknown = ran.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length)
      throw invalidInput(
        `${file} was written by a newer opentill (migrations ${unknown.join(', ')}); restore it with that version.`,
      );
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

/** The backup to read: a file itself, not a symbolic link to one. */
function backupFile(backup: string): Stats {
  const entry = entryAt(backup);
  if (!entry) throw invalidInput(`There is no file ${backup}.`);
  if (entry.isSymbolicLink()) throw invalidInput(`${backup} is a symbolic link; name the backup file itself.`);
  if (!entry.isFile()) throw invalidInput(`${backup} is not a file.`);
  return entry;
}

/**
 * Keeps the database's files under the name `previous`: each existing one of the database, its `-wal` and
 * its `-shm` gets its kept name, which must be free. The database itself stays where it is too (a hard
 * link), so that the restored file replaces it in one rename; a write-ahead log leaves, as it must never
 * meet the restored file.
 */
function keepAside(database: string, previous: string) {
  const suffixes = ['', '-wal', '-shm'].filter((suffix) => entryAt(`${database}${suffix}`));
  for (const suffix of suffixes) {
    if (entryAt(`${previous}${suffix}`))
      throw invalidState(`${previous}${suffix} exists already; move it away and restore again.`);
  }
  for (const suffix of suffixes) {
    const [from, to] = [`${database}${suffix}`, `${previous}${suffix}`];
    try {
      linkSync(from, to);
      if (suffix) unlinkSync(from);
    } catch (err) {
      if (errno(err) === 'EEXIST') throw invalidState(`${to} exists already; move it away and restore again.`);
      if (!NO_HARD_LINKS.has(errno(err) ?? '')) throw err;
      renameSync(from, to); // checked free above; this file system has no hard links
    }
  }
}

export async function restoreSqlite(backup: string, database: string, now: Date): Promise<RestoreReport> {
  const from = resolve(backup);
  const to = resolve(database);
  const read = backupFile(from);
  if (entryAt(to)?.isSymbolicLink())
    throw invalidState(
      `The database ${to} is a symbolic link; point SQLITE_FILE at the file itself (restore never writes through a link).`,
    );
  check(from);
  const users = processesUsing(existsSync(to) ? realpathSync(to) : to);
  if (users.length)
    throw invalidState(`The database is open in process ${users.join(', ')}; stop opentill (serve and worker) first.`);
  // Copied next to the database first, so that the step that replaces it is one rename on one file system.
  const staged = await stageCopy(from, to);
  try {
    const after = entryAt(from);
    if (!after?.isFile() || after.ino !== read.ino || after.dev !== read.dev)
      throw invalidInput(`${from} was replaced while it was read; restore again.`);
    const previous = ['', '-wal', '-shm'].some((suffix) => entryAt(`${to}${suffix}`))
      ? `${to}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`
      : null;
    if (previous) keepAside(to, previous);
    renameSync(staged.file, to);
    return { file: to, previous, migrations: staged.migrations };
  } finally {
    staged.remove();
  }
}
