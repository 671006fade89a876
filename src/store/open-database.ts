import type { Database } from './database.ts';
import { openPostgres } from './postgres-database.ts';
import { openSqlite } from './sqlite-database.ts';

/** The store's database: PostgreSQL when a URL is given, else the SQLite file (docs/decisions.md §12). */
export function openDatabase(options: { databaseUrl?: string | undefined; sqliteFile: string }): Database {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.sqliteFile);
}
