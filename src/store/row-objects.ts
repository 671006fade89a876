/**
 * Rows as objects, built by a function compiled for each column list. node-postgres builds every row of
 * every statement in one function whose property stores see each table's shape, so in a server they go
 * megamorphic. Measured on the changed-transactions feed (1,000 rows a request): row building took twice
 * as long as in a process that reads two tables, GC five times, and the feed answered 0.7 as many requests
 * as the lean reference (issue 38, docs/decisions.md §43). So the PostgreSQL store fetches rows as arrays
 * (`rowMode: 'array'`, still through the type parsers) and each column list's own function writes an
 * object literal of one shape. (better-sqlite3 builds its rows in C++: the same change there measured no gain.)
 *
 * The names come from the database's description of the result and are quoted by JSON.stringify; a name
 * repeated keeps its last value, as node-postgres does. A column named `__proto__` (in a literal it would
 * set the prototype) is made an own property by a slower, generic builder.
 */
type Build = (values: unknown[]) => Record<string, unknown>;

const builders = new Map<string, Build>();

export function rowBuilder(names: readonly string[]): Build {
  const key = names.join('\0');
  let build = builders.get(key);
  if (!build) {
    const body = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
    build = names.includes('__proto__')
      ? (values) => Object.fromEntries(names.map((name, i) => [name, values[i]]))
      : (new Function('v', `return { ${body} };`) as Build);
    builders.set(key, build);
  }
  return build;
}

/** Each array row as an object, by `build`. */
export function objectsOf(rows: readonly unknown[][], build: Build): Record<string, unknown>[] {
  const objects = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < objects.length; i++) objects[i] = build(rows[i]!);
  return objects;
}
