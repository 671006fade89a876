import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL test databases emptied and kept for the process's next test instead of dropped (issue 33):
 * making one from the template and dropping it cost the server about 125 ms of CPU, emptying one about
 * 11 ms, and a run makes hundreds. A database is kept only if its shape is still the fresh one's (tables,
 * columns, constraints, triggers, functions, privileges, settings and applied migrations: a fault test's
 * trigger, say, sends it to be dropped instead) and nobody is connected to it any more; emptying deletes
 * every row but the migrations' and restarts the sequences, in one transaction.
 *
 * Names carry the process's id (`opentill_test_p<pid>_...`): what a process kept when it ended, or left
 * when it was killed, is dropped by the next one to start (`reapOrphans`), and by `npm test` at its end.
 */
const kept: string[] = [];

/** The PostgreSQL server's maintenance database, where test databases are made and dropped. */
export const ADMIN_URL = process.env.OPENTILL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Shape {
  fingerprint: string;
  tables: string[];
  sequences: string[];
}

let freshShape: Promise<Shape> | undefined;

export const testDatabaseName = () => `opentill_test_p${process.pid}_${randomBytes(5).toString('hex')}`;

/** A database this process emptied, ready for a test; undefined if there is none. */
export const takeKept = (): string | undefined => kept.pop();

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const SHAPE = `
  select md5(concat_ws('|',
    (select string_agg(c.relname || ':' || c.relkind::text || ':' || c.relnatts || ':' || coalesce(c.relacl::text, ''), ',' order by c.relname)
       from pg_class c where c.relnamespace = 'public'::regnamespace),
    (select string_agg(c.relname || '.' || a.attname || ':' || a.atttypid || ':' || a.attnotnull || ':' || a.atthasdef, ',' order by c.relname, a.attnum)
       from pg_attribute a join pg_class c on c.oid = a.attrelid
       where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped),
    (select string_agg(conname || ':' || contype::text, ',' order by conname) from pg_constraint where connamespace = 'public'::regnamespace),
    (select count(*) from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relnamespace = 'public'::regnamespace and not t.tgisinternal)::text,
    (select count(*) from pg_proc where pronamespace = 'public'::regnamespace)::text,
    (select count(*) from pg_policy)::text,
    (select string_agg(array_to_string(setconfig, ';'), ',') from pg_db_role_setting
       where setdatabase = (select oid from pg_database where datname = current_database())),
    (select string_agg(name, ',' order by name) from kysely_migration)
  )) as fingerprint,
  array(select quote_ident(tablename) from pg_tables where schemaname = 'public' and tablename not like 'kysely\\_migration%' order by 1) as tables,
  array(select quote_ident(relname) from pg_class where relkind = 'S' and relnamespace = 'public'::regnamespace order by 1) as sequences`;

const shapeOf = async (client: pg.Client): Promise<Shape> => (await client.query<Shape>(SHAPE)).rows[0]!;

/** Notes the shape of a database just made from the template: the first one this process makes. */
export function rememberFreshShape(url: string): Promise<unknown> {
  freshShape ??= withClient(url, shapeOf);
  return freshShape;
}

/**
 * Empties a database whose test is done and keeps it for the next, if its shape is still the fresh one's;
 * answers whether it did. Its connections must all have closed.
 */
export async function keepEmptied(url: string, name: string): Promise<boolean> {
  if (!freshShape) return false;
  const fresh = await freshShape;
  try {
    return await withClient(url, async (client) => {
      if ((await shapeOf(client)).fingerprint !== fresh.fingerprint) return false;
      // Replica mode skips the foreign keys' triggers (superuser only: elsewhere this fails, and the database is dropped).
      await client.query(
        [
          'begin',
          'set local session_replication_role = replica',
          ...fresh.tables.map((table) => `delete from ${table}`),
          ...fresh.sequences.map((sequence) => `alter sequence ${sequence} restart`),
          'commit',
        ].join(';\n'),
      );
      kept.push(name);
      return true;
    });
  } catch {
    return false;
  }
}

/** Drops the test databases of processes that have ended (on this machine's PostgreSQL only). */
export async function reapOrphans(): Promise<void> {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(ADMIN_URL).hostname)) return;
  await withClient(ADMIN_URL, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname ~ '^opentill_test_p[0-9]+_'",
    );
    for (const { datname } of rows) {
      const pid = Number(/^opentill_test_p(\d+)_/.exec(datname)![1]);
      if (alive(pid)) continue;
      await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
