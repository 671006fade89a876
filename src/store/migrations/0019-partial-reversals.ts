import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A payment may now be reversed in several parts (refunds, chargebacks, and their undoing: docs/decisions.md
// §6a): `reverses_entry_id` is no longer unique. What guards a payment instead is the store's check of
// its reversals' sum under a lock of its row (ledger-store.ts, `insertReversal`), and that each processor
// id of a reversal is booked once per transaction (the unique index below). SQLite cannot drop a column's
// UNIQUE: the table is rebuilt, its rows and indexes as they were.
const TABLE = 'ledger_entries';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table ledger_entries drop constraint if exists ledger_entries_reverses_entry_id_key`.execute(db);
  } else {
    await rebuildSqlite(db, (create) => create.replace(/"reverses_entry_id" text unique/i, '"reverses_entry_id" text'));
  }
  await db.schema
    .createIndex('ledger_reversals_of')
    .on(TABLE)
    .column('reverses_entry_id')
    .where(sql.ref('reverses_entry_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('ledger_reversal_booked_once')
    .on(TABLE)
    .columns(['transaction_id', 'external_id'])
    .unique()
    .where((eb: any) =>
      eb.and([eb('reverses_entry_id', 'is not', null), eb('external_id', 'is not', null), eb('external_id', '!=', '')]),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ledger_reversal_booked_once').execute();
  await db.schema.dropIndex('ledger_reversals_of').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table ledger_entries add constraint ledger_entries_reverses_entry_id_key unique (reverses_entry_id)`.execute(
      db,
    );
  } else {
    await rebuildSqlite(db, (create) =>
      create.replace(/"reverses_entry_id" text(?! unique)/i, '"reverses_entry_id" text unique'),
    );
  }
}

/**
 * SQLite's way to change a column's constraints (https://www.sqlite.org/lang_altertable.html, "making
 * other kinds of table schema changes"): a new table from the old one's CREATE statement as `change`
 * rewrites it, every row copied, the old table dropped, the new one renamed, and the old indexes made
 * again; in one database transaction, so a crash leaves either table whole.
 */
async function rebuildSqlite(db: Kysely<any>, change: (create: string) => string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { rows: tables } = await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'table' and name = ${TABLE}`.execute(trx);
    const { rows: indexes } = await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'index' and tbl_name = ${TABLE} and sql is not null`.execute(trx);
    const create = change(tables[0]!.sql).replace(`CREATE TABLE "${TABLE}"`, `CREATE TABLE "${TABLE}_rebuilt"`);
    if (!create.includes(`"${TABLE}_rebuilt"`))
      throw new Error(`the ${TABLE} table's definition is not the one this migration knows`);
    await sql.raw(create).execute(trx);
    await sql.raw(`insert into "${TABLE}_rebuilt" select * from "${TABLE}"`).execute(trx);
    await sql.raw(`drop table "${TABLE}"`).execute(trx);
    await sql.raw(`alter table "${TABLE}_rebuilt" rename to "${TABLE}"`).execute(trx);
    for (const index of indexes) await sql.raw(index.sql).execute(trx);
  });
}
