import SQLite from 'better-sqlite3';
import pg from 'pg';
import { freshDatabase } from '../support/databases.ts';

/**
 * A fresh PostgreSQL database (migrated by opentill) holding exactly the rows of a seeded SQLite
 * file (bench/seed.ts): the same IDs, credential and customers, so the PostgreSQL run asks for the
 * same things. Rows go over in batches of BATCH, one column array per column (`unnest`), with
 * foreign-key triggers off and the indexes that are not constraints dropped for the copy only (built
 * again at the end, far faster than row by row); then VACUUM (ANALYZE), as autovacuum would soon
 * after such a load (and so it does not start in the middle of a measurement). `drop` removes the
 * database.
 */
const BATCH = 10_000;

export interface PostgresCopy {
  url: string;
  seconds: number;
  drop(): Promise<void>;
}

export async function postgresCopyOf(
  sqliteFile: string,
  log: (line: string) => void = () => {},
): Promise<PostgresCopy> {
  const started = performance.now();
  const fresh = await freshDatabase('postgres');
  // Only the migrations were needed from opentill's pool; the copy uses one client of its own.
  await fresh.database.close();
  const client = new pg.Client({ connectionString: fresh.url });
  const source = new SQLite(sqliteFile, { readonly: true });
  try {
    await client.connect();
    await client.query('SET session_replication_role = replica');
    await client.query(`SET maintenance_work_mem = '256MB'`);
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'public'
         AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
    const tables = source
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    for (const table of tables) {
      const rows = (source.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) ?? 0;
      if (rows === 0) continue;
      const { rows: columns } = await client.query<{ name: string; type: string }>(
        `SELECT column_name AS name, udt_name AS type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
        [table],
      );
      const typeOf = new Map(columns.map((c) => [c.name, c.type]));
      const names = source.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
      for (const name of names)
        if (!typeOf.has(name)) throw new Error(`${table}.${name} is in SQLite but not in PostgreSQL`);
      const insert = `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) SELECT * FROM unnest(${names.map((n, i) => `$${i + 1}::${typeOf.get(n)}[]`).join(', ')})`;
      let batch: unknown[][] = names.map(() => []);
      let inBatch = 0;
      const flush = async () => {
        if (inBatch === 0) return;
        await client.query(insert, batch);
        batch = names.map(() => []);
        inBatch = 0;
      };
      for (const row of source
        .prepare(`SELECT ${names.map((n) => `"${n}"`).join(', ')} FROM ${table}`)
        .raw()
        .iterate() as Iterable<unknown[]>) {
        for (let c = 0; c < row.length; c++) batch[c]!.push(row[c]);
        if (++inBatch === BATCH) await flush();
      }
      await flush();
      log(
        `  postgres: ${table} ${rows.toLocaleString('en-US')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
    for (const index of indexes) await client.query(index.definition);
    log(`  postgres: ${indexes.length} indexes built, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // The ledger's booking numbers came with the rows: the next entry booked is numbered after them.
    await client.query(
      `SELECT setval(pg_get_serial_sequence('ledger_entries', 'book_seq'), (SELECT coalesce(max(book_seq), 0) + 1 FROM ledger_entries), false)`,
    );
    await client.query('SET session_replication_role = DEFAULT');
    await client.query('VACUUM (ANALYZE)');
  } catch (err) {
    await client.end().catch(() => undefined);
    source.close();
    await fresh.drop();
    throw err;
  }
  await client.end();
  source.close();
  return { url: fresh.url!, seconds: (performance.now() - started) / 1000, drop: fresh.drop };
}
