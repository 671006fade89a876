import { createHash } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { sql } from 'kysely';
import type { Database } from '../../src/store/database.ts';

/**
 * What the route fuzz test (test/api/route-fuzz.test.ts) needs around its generators: the app's
 * routes, which route a request reaches, a fingerprint of everything in the store, a raw HTTP
 * client that sends a path exactly as given, and the rules every answer must keep.
 */

export interface Route {
  method: string;
  url: string;
  /** A server-rendered page (or its invoice PDF): it answers problems as HTML, not JSON. */
  page: boolean;
}

// The pages' JSON endpoints for their scripts (a processor's browser session) answer problems as JSON too.
const NOT_PAGES =
  /^(\/sandbox)?\/(v1|public\/v1|webhooks)([/*]|$)|^\/(docs|latest)([/*]|$)|^\/(openapi\.json|healthz|readyz|metrics)$|\/(session|quote|checkout\.js)$/;

/**
 * Every route of the app, read from its route tree (`printRoutes` with common prefixes, where each
 * node's key continues its parent's), and each one confirmed with `hasRoute`, so a change in the
 * tree's format fails loudly instead of fuzzing fewer routes.
 */
export function listRoutes(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const keys: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: true }).split('\n')) {
    if (line.trim() === '') continue;
    const branch = /^([│ ]*)[├└]── (.*)$/.exec(line);
    if (!branch) throw new Error(`route tree line not understood: ${JSON.stringify(line)}`);
    const depth = branch[1]!.length / 4;
    const [, key, methods] = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(branch[2]!)!;
    keys.length = depth;
    keys.push(key!);
    if (!methods) continue;
    const url = keys.join('');
    for (const method of methods.split(', ')) {
      if (!app.hasRoute({ method: method as 'GET', url }))
        throw new Error(`route tree names ${method} ${url}, which hasRoute does not know`);
      routes.push({ method, url, page: !NOT_PAGES.test(url) });
    }
  }
  return routes;
}

/** Which of `routes` a request reaches, as the app's router decides it (same options as src/http/app.ts). */
export function routeFinder(routes: readonly Route[]) {
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 1000 });
  for (const route of routes) router.on(route.method as 'GET', route.url, () => undefined, { route });
  return (method: string, target: string): Route | undefined => {
    const path = target.split('?')[0]!;
    try {
      return (router.find(method as 'GET', path)?.store as { route: Route } | undefined)?.route;
    } catch {
      return undefined;
    }
  };
}

export type StoreFingerprint = Map<string, { rows: number; digest: string }>;

/** The names of every table in the database, as the database lists them. */
export async function tableNames(database: Database): Promise<string[]> {
  const query =
    database.dialect === 'sqlite'
      ? sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
      : sql<{
          name: string;
        }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`;
  return (await query.execute(database.kysely)).rows.map((row) => row.name);
}

/**
 * Row count and a digest of every row of every table: any insert, update or delete changes it. On
 * PostgreSQL the server digests each table's rows as text, all tables in one query: a query per table,
 * each row sent back and hashed here, took 25 ms a fingerprint, a third of the fuzz test's time.
 */
export async function fingerprint(database: Database, tables: readonly string[]): Promise<StoreFingerprint> {
  if (database.dialect === 'postgres') {
    const digests = tables.map(
      (table) =>
        sql`select ${table}::text as name, count(*)::int as rows, md5(coalesce(string_agg(r::text, E'\\n' order by r::text), '')) as digest from ${sql.table(table)} r`,
    );
    const { rows } = await sql<{
      name: string;
      rows: number;
      digest: string;
    }>`${sql.join(digests, sql` union all `)}`.execute(database.kysely);
    return new Map(rows.map(({ name, rows, digest }) => [name, { rows, digest }]));
  }
  const read = async (table: string) => {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(database.kysely);
    const lines = rows.map((row) => JSON.stringify(row)).sort();
    return [table, { rows: rows.length, digest: createHash('sha256').update(lines.join('\n')).digest('hex') }] as const;
  };
  return new Map(await Promise.all(tables.map(read)));
}

/** The tables whose content differs, with their row counts before and after. */
export function changedTables(before: StoreFingerprint, after: StoreFingerprint): string[] {
  const changed: string[] = [];
  for (const [table, was] of before) {
    const now = after.get(table);
    if (now?.digest !== was.digest) changed.push(`${table} (${was.rows} -> ${now?.rows ?? 'gone'} rows)`);
  }
  return changed;
}

export interface RawRequest {
  method: string;
  /** The request target exactly as sent: path and query, percent-encoding left as it is. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Sends the request as given (fetch would normalize `..` and re-encode the path), with a Content-Length that matches the body. */
export function send(base: string, request: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(request.body.length);
    const req = httpRequest(
      { agent, hostname, port, method: request.method, path: request.path, headers, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(request.body);
  });
}

export function closeSockets() {
  agent.destroy();
}

/**
 * What is wrong with an answer, if anything: a 5xx; a 4xx of a page route that is not an HTML page;
 * any other 4xx that is not exactly `{error, message}` (and perhaps `requestId`) as JSON.
 */
export function answerProblems(request: RawRequest, answer: RawAnswer, route: Route | undefined): string[] {
  if (answer.status >= 500) return [`answered ${answer.status}: ${answer.text.slice(0, 300)}`];
  if (answer.status < 400) return [];
  const type = String(answer.headers['content-type'] ?? '');
  const head = request.method === 'HEAD';
  if (route?.page) {
    if (!type.startsWith('text/html'))
      return [`a page answered ${answer.status} as ${type || 'no content type'}: ${answer.text.slice(0, 300)}`];
    if (!head && !(/^<!doctype html>/i.test(answer.text) && answer.text.includes('</html>')))
      return [`a page answered ${answer.status} with no whole page`];
    return [];
  }
  if (!type.startsWith('application/json'))
    return [`answered ${answer.status} as ${type || 'no content type'}: ${answer.text.slice(0, 300)}`];
  if (head) return [];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 300)}`];
  }
  const fields =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const extra = Object.keys(fields).filter((key) => !['error', 'message', 'requestId'].includes(key));
  const wellFormed =
    typeof fields.error === 'string' &&
    /^[A-Z_]+$/.test(fields.error) &&
    typeof fields.message === 'string' &&
    fields.message !== '';
  if (!wellFormed || extra.length > 0 || (fields.requestId !== undefined && typeof fields.requestId !== 'string')) {
    return [`answered ${answer.status} with a body that is not {error, message}: ${answer.text.slice(0, 300)}`];
  }
  return [];
}
