import type { CompiledQuery, Compilable } from 'kysely';
import type { DialectName, Executor, ReadRows } from './database.ts';

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  slots: number[];
}
const shared = new Map<string, Compiled<unknown>>();

/**
 * A query built and compiled once, then run with new values: on the read path building and compiling
 * a Kysely query cost more than SQLite's lookup. `build` receives one placeholder per parameter and
 * must use each as a bound value (once or more); the compiled parameters are mapped back to the call's arguments by
 * identity, so their order in the SQL does not matter. With `runOn` (the reading connection outside
 * a transaction, Database.readRows; a transaction's own connection inside, Database.transaction) it
 * runs there instead of through Kysely. A store made for each database
 * transaction names its queries with `shareAs` (unique per dialect and query), so they are compiled
 * once per process rather than once per transaction.
 */
export function precompiled<Args extends unknown[], Row>(
  db: Executor,
  arity: Args['length'],
  build: (...placeholders: Args) => Compilable<Row>,
  options: { runOn?: ReadRows | undefined; shareAs?: string } = {},
) {
  const { runOn, shareAs } = options;
  let compiled = shareAs === undefined ? undefined : (shared.get(shareAs) as Compiled<Row> | undefined);
  return async (...args: Args): Promise<Row[]> => {
    if (!compiled) {
      const placeholders = Array.from({ length: arity }, (_, i) => `\u0000placeholder:${i}\u0000`) as Args;
      const query = build(...placeholders).compile();
      // A parameter that is no placeholder is a constant of the statement (say, `status in ('PENDING', 'UNKNOWN')`).
      const slots = query.parameters.map((value) => (placeholders as unknown[]).indexOf(value));
      if (new Set(slots.filter((slot) => slot >= 0)).size !== arity)
        throw new Error(`precompiled query must bind each of its ${arity} values: ${query.sql}`);
      compiled = { query, slots };
      if (shareAs !== undefined) shared.set(shareAs, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot < 0 ? query.parameters[i] : args[slot]));
    if (runOn) return (await runOn(query.sql, parameters)) as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}

/**
 * `precompiled` for a statement over one row of `columns` (an insert, say): `build` receives the row
 * of placeholders; the function returned takes the row itself. Every column is bound, absent ones
 * as null.
 */
export function precompiledRow<Row extends object, Out>(
  db: Executor,
  columns: readonly (keyof Row & string)[],
  build: (row: Row) => Compilable<Out>,
  options: { runOn?: ReadRows | undefined; shareAs?: string } = {},
) {
  const run = precompiled(
    db,
    columns.length,
    (...values: unknown[]) => build(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Row),
    options,
  );
  return (row: Row) => run(...columns.map((column) => row[column] ?? null));
}

/**
 * A statement over many rows (a multi-row insert, a table of values), built and compiled once per
 * dialect and row count and then run with new values: building and compiling a 500-row statement
 * cost Kysely more than SQLite took to write its rows. `build` receives one placeholder row per
 * row, with a placeholder for each of `columns`, and must bind each (once or more); it is never
 * given the values themselves. The compiled texts do not depend on the connection, so a store made
 * anew for each database transaction still compiles each size once; the last `kept` sizes are kept.
 */
export function precompiledRows<Row extends object, Out>(
  columns: readonly (keyof Row & string)[],
  build: (db: Executor, rows: Row[]) => Compilable<Out>,
  kept = 16,
) {
  const compiled = new Map<string, { query: CompiledQuery<Out>; slots: Int32Array }>();
  const compile = (db: Executor, key: string, count: number) => {
    const index = new Map<string, number>();
    const placeholders = Array.from({ length: count }, (_, r) => {
      const row: Record<string, string> = {};
      columns.forEach((column, c) => {
        const placeholder = `\u0000row:${r}:${c}\u0000`;
        index.set(placeholder, r * columns.length + c);
        row[column] = placeholder;
      });
      return row as Row;
    });
    const query = build(db, placeholders).compile();
    // A parameter that is no placeholder is a constant of the statement (say, `environment = 'sandbox'`).
    const slots = query.parameters.map((value) => (typeof value === 'string' ? (index.get(value) ?? -1) : -1));
    if (new Set(slots.filter((slot) => slot >= 0)).size !== index.size)
      throw new Error(`precompiled statement must bind each of its ${index.size} values: ${query.sql.slice(0, 200)}`);
    if (compiled.size >= kept) compiled.delete(compiled.keys().next().value!);
    const entry = { query, slots: Int32Array.from(slots) };
    compiled.set(key, entry);
    return entry;
  };
  return async (db: Executor, dialect: DialectName, rows: readonly Row[]): Promise<Out[]> => {
    const key = `${dialect}:${rows.length}`;
    const { query, slots } = compiled.get(key) ?? compile(db, key, rows.length);
    const width = columns.length;
    const parameters = query.parameters.slice();
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      if (slot >= 0) parameters[i] = rows[(slot / width) | 0]![columns[slot % width]!] ?? null;
    }
    const result = await db.executeQuery<Out>({ ...query, parameters });
    return result.rows;
  };
}
