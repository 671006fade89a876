import type { CompiledQuery, Compilable } from 'kysely';
import type { Executor, ReadRows } from './database.ts';

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  slots: number[];
}
const shared = new Map<string, Compiled<unknown>>();

/**
 * A query built and compiled once, then run with new values: on the read path building and compiling
 * a Kysely query cost more than SQLite's lookup. `build` receives one placeholder per parameter and
 * must use each as a bound value (once or more); the compiled parameters are mapped back to the call's arguments by
 * identity, so their order in the SQL does not matter. With `readRows` (outside a transaction:
 * see Database.readRows) it runs there instead of through Kysely. A store made for each database
 * transaction names its queries with `shareAs` (unique per dialect and query), so they are compiled
 * once per process rather than once per transaction.
 */
export function precompiled<Args extends unknown[], Row>(
  db: Executor,
  arity: Args['length'],
  build: (...placeholders: Args) => Compilable<Row>,
  options: { readRows?: ReadRows | undefined; shareAs?: string } = {},
) {
  const { readRows, shareAs } = options;
  let compiled = shareAs === undefined ? undefined : (shared.get(shareAs) as Compiled<Row> | undefined);
  return async (...args: Args): Promise<Row[]> => {
    if (!compiled) {
      const placeholders = Array.from({ length: arity }, (_, i) => `\u0000placeholder:${i}\u0000`) as Args;
      const query = build(...placeholders).compile();
      const slots = query.parameters.map((value) => (placeholders as unknown[]).indexOf(value));
      if (slots.some((slot) => slot < 0) || new Set(slots).size !== arity)
        throw new Error(`precompiled query must bind each of its ${arity} values: ${query.sql}`);
      compiled = { query, slots };
      if (shareAs !== undefined) shared.set(shareAs, compiled);
    }
    const { query, slots } = compiled;
    if (readRows)
      return (await readRows(
        query.sql,
        slots.map((slot) => args[slot]),
      )) as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters: slots.map((slot) => args[slot]) });
    return result.rows;
  };
}
