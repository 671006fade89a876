import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Database } from '../../src/store/database.ts';
import {
  answerProblems,
  changedTables,
  closeSockets,
  fingerprint,
  listRoutes,
  routeFinder,
  send,
  tableNames,
  type RawAnswer,
  type RawRequest,
  type Route,
  type StoreFingerprint,
} from '../helpers/route-fuzz.ts';
import { fuzzCases, materialize, type FuzzCase, type World } from '../helpers/route-fuzz-requests.ts';
import { keepSessionsOpen, seedWorld } from '../helpers/route-fuzz-world.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Hostile requests at every route of both environments (production at /, the sandbox at /sandbox),
 * pages included: whatever arrives, the answer is never a 5xx; an error is `{error, message}` as
 * JSON, or on a page an HTML page; and a request refused with a 4xx changed nothing in the store.
 * Runs OPENTILL_FUZZ_RUNS requests per store (default 600) from seed OPENTILL_FUZZ_SEED (default
 * random, printed); a failure prints the seed and the shrunk request, to replay it.
 */
const RUNS = Number(process.env.OPENTILL_FUZZ_RUNS ?? 600);
const SEED = Number(process.env.OPENTILL_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Tables a 4xx answer may change by design, and only those. */
function allowedChanges(fuzzCase: FuzzCase, request: RawRequest, answer: RawAnswer, authorization: string): string[] {
  const allowed: string[] = [];
  const key = request.headers['idempotency-key'];
  // An authenticated API POST with an Idempotency-Key keeps its 4xx answer, to replay it (docs/decisions.md, idempotency).
  if (
    !fuzzCase.route.page &&
    request.method === 'POST' &&
    request.headers.authorization === authorization &&
    key &&
    key.length <= 255
  )
    allowed.push('idempotency_keys');
  // A declined card leaves the record of the attempt (docs/architecture.md, how money moves exactly once).
  if (fuzzCase.route.url.endsWith('/payment/product/:productId') && answer.status === 402)
    allowed.push('charge_attempts', 'sandbox_gateway_charges');
  return allowed;
}

for (const kind of await storeKinds()) {
  describe(`every route of both environments under hostile input (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let world: World;
    let routes: Route[];
    let database: Database;
    let tables: string[];
    before(async () => {
      // With a metrics token, so /metrics is among the routes fuzzed.
      t = await startTestApp(kind, {
        env: { METRICS_TOKEN: 'fuzz-metrics-token-0123456789abcdef', PANEL_SIGNUP: 'open' },
      });
      v = await t.newVendor('Fuzz Vendor');
      world = await seedWorld(t, v);
      routes = listRoutes(t.app);
      database = t.services.database;
      tables = await tableNames(database);
    });
    after(async () => {
      closeSockets();
      await t.close();
    });

    const pagePosts = () => routes.filter((route) => route.page && route.method === 'POST');
    /** A page route's path with the world's own ids and tokens in its parameters. */
    const pathOf = (route: Route) => {
      const environment = route.url.startsWith('/sandbox') ? 'sandbox' : 'production';
      const params: Record<string, string> = {
        productId: `${environment}.product.onetime`,
        token: `${environment}.manage`,
        session: `${environment}.adminSession`,
        id: `${environment}.tx.onetime`,
      };
      return route.url.replace(/:(\w+)/g, (_, name: string) => world.get(params[name] ?? '') ?? 'x');
    };

    test('the store fingerprint sees one changed field of one row, and the same rows again as unchanged', async () => {
      const before = await fingerprint(database, tables);
      assert.deepEqual(changedTables(before, await fingerprint(database, tables)), []);
      const { id, payload } = await database.kysely
        .selectFrom('transactions')
        .select(['id', 'payload'])
        .where('id', '=', world.get('sandbox.tx.onetime')!)
        .executeTakeFirstOrThrow();
      const setPayload = (value: string | null) =>
        database.kysely.updateTable('transactions').set({ payload: value }).where('id', '=', id).execute();
      await setPayload(`${payload ?? ''}x`);
      const rows = before.get('transactions')!.rows;
      assert.deepEqual(changedTables(before, await fingerprint(database, tables)), [
        `transactions (${rows} -> ${rows} rows)`,
      ]);
      await setPayload(payload);
      assert.deepEqual(changedTables(before, await fingerprint(database, tables)), [], 'the same rows again');
    });

    test('every page form refuses a JSON, text, multipart or untyped body with 415 and an HTML page, and changes nothing', async () => {
      assert.ok(pagePosts().length >= 12, `page POST routes: ${pagePosts().length}`);
      const bodies: [Record<string, string>, string][] = [
        [{ 'content-type': 'application/json' }, '{"email":5,"coupon":["a"],"csrf":{"x":1},"action":[1,2]}'],
        [{ 'content-type': 'application/json; charset=utf-8' }, '[1,2]'],
        [{ 'content-type': 'text/plain' }, 'email=a@example.com'],
        [
          { 'content-type': 'multipart/form-data; boundary=x' },
          '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na\r\n--x--',
        ],
        [{}, 'email=a@example.com'],
      ];
      for (const route of pagePosts()) {
        for (const [headers, body] of bodies) {
          const before = await fingerprint(database, tables);
          const answer = await send(t.url, {
            method: 'POST',
            path: pathOf(route),
            headers: { cookie: world.get('panelCookies')!, ...headers },
            body: Buffer.from(body),
          });
          assert.equal(
            answer.status,
            415,
            `${route.url} ${JSON.stringify(headers)}: ${answer.status} ${answer.text.slice(0, 200)}`,
          );
          assert.deepEqual(answerProblems({ method: 'POST', path: route.url, headers }, answer, route), []);
          assert.match(answer.text, /<title>Not a form/);
          assert.deepEqual(changedTables(before, await fingerprint(database, tables)), [], route.url);
        }
      }
    });

    test('a repeated form field keeps its last value; a POST without a body, or with an empty one, reaches the page as before', async () => {
      const checkout = `/sandbox/payment/product/${world.get('sandbox.product.onetime')}`;
      const repeated = await send(t.url, {
        method: 'POST',
        path: checkout,
        headers: FORM,
        body: Buffer.from('email=first%40example.com&email=last%40example.com'),
      });
      assert.equal(repeated.status, 400, repeated.text.slice(0, 300));
      assert.match(repeated.text, /value="last@example.com"/);
      assert.doesNotMatch(repeated.text, /first@example.com/);
      for (const headers of [{}, { 'content-type': 'application/json' }, FORM]) {
        const bare = await send(t.url, { method: 'POST', path: checkout, headers, body: Buffer.alloc(0) });
        assert.equal(bare.status, 400, `${JSON.stringify(headers)}: ${bare.text.slice(0, 300)}`);
        assert.match(bare.text, /The form has expired/);
        const signOut = await send(t.url, { method: 'POST', path: '/panel/signout', headers, body: Buffer.alloc(0) });
        assert.deepEqual([signOut.status, signOut.headers.location], [303, '/panel/signin']);
      }
    });

    test('a NUL character or a repeated name in a page query, path or form is a 400 page or the last value, never a 500', async () => {
      const session = `/sandbox/admin/s/${world.get('sandbox.adminSession')}`;
      const cases: RawRequest[] = [
        { method: 'GET', path: `${session}?q=a&q=${world.get('sandbox.tx.onetime')}`, headers: {} },
        { method: 'GET', path: `${session}?q=%00`, headers: {} },
        { method: 'GET', path: '/sandbox/payment/product/TC-PR_%00', headers: {} },
        {
          method: 'POST',
          path: `/sandbox/payment/product/${world.get('sandbox.product.onetime')}`,
          headers: FORM,
          body: Buffer.from('email=a%00b%40example.com'),
        },
        {
          method: 'POST',
          path: '/panel/signin',
          headers: FORM,
          body: Buffer.from('email=a%00@example.com&password=x'),
        },
      ];
      const statuses = [];
      for (const request of cases) {
        const answer = await send(t.url, request);
        assert.deepEqual(
          answerProblems(request, answer, routeFinder(routes)(request.method, request.path)),
          [],
          request.path,
        );
        statuses.push(answer.status);
      }
      assert.deepEqual(statuses, [200, 400, 400, 400, 400]);
    });

    test('a malformed URL or an overlong path segment is answered {error, message}, on API and page routes alike', async () => {
      const malformed = [
        '/v1/transaction/%E0%A4%A',
        '/sandbox/v1/transaction/%',
        '/sandbox/v1/check-licence/%ZZ/x',
        '/payment/product/%',
        '/sandbox/payment/product/%E0%A4%A',
        '/sandbox/manage/%C0%AF%',
        '/admin/s/%/tx/x',
        '/invoice/%ZZ',
        '/panel%',
        '/%E0%A4%A/x',
      ];
      for (const path of malformed) {
        const answer = await send(t.url, {
          method: 'GET',
          path,
          headers: { authorization: v.credentials.sandbox.authorization },
        });
        assert.equal(answer.status, 400, `${path}: ${answer.text}`);
        assert.deepEqual(answerProblems({ method: 'GET', path, headers: {} }, answer, undefined), [], path);
        assert.equal(JSON.parse(answer.text).error, 'INVALID_INPUT', path);
      }
      for (const path of [
        `/sandbox/v1/transaction/${'x'.repeat(1001)}`,
        `/sandbox/payment/product/${'x'.repeat(1001)}`,
      ]) {
        const answer = await send(t.url, {
          method: 'GET',
          path,
          headers: { authorization: v.credentials.sandbox.authorization },
        });
        assert.ok(answer.status === 400 || answer.status === 414, `${answer.status}`);
        assert.deepEqual(answerProblems({ method: 'GET', path, headers: {} }, answer, undefined), [], path);
      }
    });

    test('random paths, headers and bodies at every route: never a 5xx; errors are {error, message} or a page; a 4xx changes nothing', async (ctx) => {
      const find = routeFinder(routes);
      const authorization = {
        production: v.credentials.production.authorization,
        sandbox: v.credentials.sandbox.authorization,
      };
      ctx.diagnostic(
        `${routes.length} routes (${routes.filter((r) => r.page).length} of pages), ${RUNS} requests, seed ${SEED}`,
      );
      // The store as the last request left it, where it was read after that request (a 4xx): the next
      // request's "before", read once instead of twice. Nothing writes between two requests: a write
      // made after an answer would race the read after it, and the property would already be flaky.
      let left: StoreFingerprint | undefined;
      await fc.assert(
        fc.asyncProperty(fuzzCases(world, routes, authorization), async (fuzzCase) => {
          const request = materialize(fuzzCase, world);
          const before = left ?? (await fingerprint(database, tables));
          left = undefined;
          const answer = await send(t.url, request);
          const route = find(request.method, request.path);
          const problems = answerProblems(request, answer, route);
          if (answer.status >= 400 && answer.status < 500) {
            const own = fuzzCase.route.url.startsWith('/sandbox') ? authorization.sandbox : authorization.production;
            const allowed = allowedChanges(fuzzCase, request, answer, own);
            left = await fingerprint(database, tables);
            const changed = changedTables(before, left).filter((table) => !allowed.includes(table.split(' ')[0]!));
            if (changed.length > 0)
              problems.push(
                `answered ${answer.status} but changed ${changed.join(', ')}: ${answer.text.slice(0, 300)}`,
              );
          }
          if (request.method === 'POST' && answer.status < 400) await keepSessionsOpen(t, v, world);
          const shown = { ...request, body: request.body?.toString('utf8').slice(0, 500), route: route?.url ?? 'none' };
          assert.deepEqual(problems, [], JSON.stringify(shown));
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: false },
      );
    });
  });
}
