import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { StoreKind } from '../support/databases.ts';
import { postgresCopyOf } from './seed-postgres.ts';
import { seededStore, type SeededStore } from './seed.ts';
import type { StoreLocation } from './servers.ts';
import { loadAverage, log, setting, SMOKE, storesToMeasure } from './settings.ts';

/**
 * The store a bench's servers run on, from the seeded SQLite file: that file itself (reads), a copy
 * in `dir` (writes: the cached file stays as seeded), or a fresh PostgreSQL database with the same
 * rows. `drop` removes what was made for the run.
 */
export interface BenchStore {
  location: StoreLocation;
  /** How writes reach the disk, as the store reports it. */
  durability(): Promise<string>;
  drop(): Promise<void>;
}

export async function benchStore(
  kind: StoreKind,
  seeded: SeededStore,
  options: { writable: boolean; dir: string; log: (line: string) => void },
): Promise<BenchStore> {
  if (kind === 'sqlite') {
    const file = options.writable ? join(options.dir, 'writable.db') : seeded.file;
    if (options.writable) copyFileSync(seeded.file, file);
    return {
      location: { sqliteFile: file },
      async durability() {
        // opentill's own pragmas (src/store/database.ts), which the lean server opens with too.
        const db = new SQLite(file, { readonly: true });
        const mode = db.pragma('journal_mode', { simple: true }) as string;
        db.close();
        return `journal_mode=${mode}, synchronous=FULL (opentill's setting, src/store/database.ts)`;
      },
      drop: async () => undefined,
    };
  }
  const copy = await postgresCopyOf(seeded.file, options.log);
  options.log(`postgres: a fresh database with the same rows in ${copy.seconds.toFixed(1)} s`);
  return {
    location: { databaseUrl: copy.url },
    async durability() {
      const client = new pg.Client({ connectionString: copy.url });
      await client.connect();
      try {
        const values: string[] = [];
        for (const name of ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method'])
          values.push(`${name}=${(await client.query<Record<string, string>>(`show ${name}`)).rows[0]![name]}`);
        return values.join(', ');
      } finally {
        await client.end();
      }
    },
    drop: () => copy.drop(),
  };
}

/**
 * A write bench's run: the seeded store (fresh in smoke mode), then for each store to measure a
 * writable copy, its durability and `measure`'s lines; then `heading` and every line, and the load.
 */
export async function runWriteBench(
  name: string,
  rows: number,
  heading: string,
  measureStore: (kind: StoreKind, location: StoreLocation, seeded: SeededStore, workDir: string) => Promise<string[]>,
): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), `opentill-${name}-bench-`));
  try {
    const seeded = await seededStore(rows, setting('BENCH_PENDING', 1000, 50), {
      file: SMOKE ? join(workDir, 'smoke.db') : undefined,
      log,
    });
    const results: string[] = [];
    for (const kind of storesToMeasure()) {
      const target = await benchStore(kind, seeded, { writable: true, dir: workDir, log });
      try {
        results.push(`${kind}: ${await target.durability()}`);
        results.push(...(await measureStore(kind, target.location, seeded, workDir)));
      } finally {
        await target.drop();
      }
    }
    log('');
    log(heading);
    for (const line of results) log(line);
    log(`load average after: ${loadAverage()}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
