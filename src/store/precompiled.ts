import type { CompiledQuery, Compilable } from 'kysely';
import type { Executor, ReadRows } from './database.ts';

/**
 * A query built and compiled once, then run with new values: on the read path building and compiling
 * a Kysely query cost more than SQLite's lookup. `build` receives one placeholder per parameter and
 * must use each as a bound value (once or more); the compiled parameters are mapped back to the call's arguments by
 * identity, so their order in the SQL does not matter. With `readRows` (SQLite, outside a transaction:
 * see Database.readRows) it runs there instead of through Kysely.
 */
export function precompiled<Args extends unknown[], Row>(
  db: Executor,
  arity: Args['length'],
  build: (...placeholders: Args) => Compilable<Row>,
  readRows?: ReadRows | undefined,
) {
  let compiled: { query: CompiledQuery<Row>; slots: number[] } | undefined;
  return async (...args: Args): Promise<Row[]> => {
    if (!compiled) {
      const placeholders = Array.from({ length: arity }, (_, i) => `\u0000placeholder:${i}\u0000`) as Args;
      const query = build(...placeholders).compile();
      const slots = query.parameters.map((value) => (placeholders as unknown[]).indexOf(value));
      if (slots.some((slot) => slot < 0) || new Set(slots).size !== arity)
        throw new Error(`precompiled query must bind each of its ${arity} values: ${query.sql}`);
      compiled = { query, slots };
    }
    const { query, slots } = compiled;
    if (readRows)
      return readRows(
        query.sql,
        slots.map((slot) => args[slot]),
      ) as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters: slots.map((slot) => args[slot]) });
    return result.rows;
  };
}
