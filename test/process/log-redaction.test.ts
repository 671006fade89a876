import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { freePort, logLines, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * The request log of `opentill serve` never holds what a URL path carries in secret: admin and
 * management link tokens, admin sessions, e-mails, licence keys (docs/decisions.md §11). It names
 * the route instead (`/sandbox/v1/transactions/:email`), and a path no route matched by its leading words (`/admin/*`).
 */
async function startServe(kind: 'sqlite' | 'postgres', dataDir: string) {
  if (kind === 'sqlite') return { server: new ServerProcess(await freePort(), dataDir), drop: async () => {} };
  // ServerProcess clears DATABASE_URL from the child's environment; Node's --env-file hands it over.
  const store = await freshDatabase('postgres');
  await store.database.close();
  const envFile = join(dataDir, 'postgres.env');
  writeFileSync(envFile, `DATABASE_URL=${store.url}\n`);
  return {
    server: new ServerProcess(await freePort(), dataDir, { nodeArgs: [`--env-file=${envFile}`] }),
    drop: store.drop,
  };
}

const lastSegment = (url: string) => new URL(url).pathname.split('/').pop()!;

for (const kind of await storeKinds()) {
  describe(`request log (${kind})`, () => {
    test('tokens, sessions, e-mails and licence keys in paths never reach the log; the route pattern does', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'opentill-log-'));
      const { server, drop } = await startServe(kind, dataDir);
      try {
        await within(server.started(), 'the start');
        assert.match(server.stdout, kind === 'postgres' ? /store: PostgreSQL/ : /store: SQLite/);
        const credential = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
        // The banner's curl line names bob@example.com; what follows it is the log.
        const logStart = server.stdout.length;
        const get = (path: string, init: RequestInit = {}) =>
          fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
        const api = async (path: string) => {
          const res = await get(path, { headers: { authorization: credential } });
          assert.equal(res.status, 200, `${path}: ${res.status}`);
          return res.json() as Promise<any>;
        };
        const onServer = (link: string) => `${server.url}${new URL(link).pathname}`;
        let requests = 0;
        const visit = async (url: string, init: RequestInit = {}) => {
          requests++;
          const res = await fetch(url, { redirect: 'manual', ...init });
          return { status: res.status, location: res.headers.get('location'), text: await res.text() };
        };

        const email = 'anna@example.com';
        const purchases = (await api(`/sandbox/v1/transactions/${encodeURIComponent(email)}`)) as {
          id: string;
          productId: string;
        }[];
        const manageLink = (await api(`/sandbox/v1/generate-url-to-manage-transactions/${encodeURIComponent(email)}`))
          .url as string;
        const adminLink = (await api('/sandbox/v1/generate-url-to-admin')).url as string;
        requests += 3;
        const managePage = await visit(onServer(manageLink));
        assert.equal(managePage.status, 200);
        const licence = managePage.text.match(/data-testid="licence"[^>]*>([^<]+)</)?.[1];
        assert.ok(licence, 'the management page shows the licence key of the lifetime purchase');
        const licensed = purchases.find((p) => p.productId)!;
        const opened = await visit(onServer(adminLink));
        assert.equal(opened.status, 303);
        const sessionUrl = new URL(opened.location!, onServer(adminLink)).toString();
        assert.equal((await visit(`${sessionUrl}?q=${encodeURIComponent(email)}`)).status, 200);

        const secrets = {
          email,
          encodedEmail: encodeURIComponent(email),
          manageToken: lastSegment(manageLink),
          adminToken: lastSegment(adminLink),
          licence,
        };
        const session = lastSegment(sessionUrl);
        for (const [name, value] of Object.entries(secrets))
          assert.ok(value.length >= 16, `${name} is long enough to be searched for: ${value}`);
        const authorization = { headers: { authorization: credential } };
        let licenceChecked = false;
        for (const product of new Set(purchases.map((p) => p.productId))) {
          const res = await visit(`${server.url}/sandbox/v1/check-licence/${product}/${licence}`, authorization);
          licenceChecked ||= JSON.parse(res.text).status === 'ACTIVE';
        }
        assert.ok(licenceChecked, `licence ${licence} of ${licensed.productId} is ACTIVE`);
        // The same secrets at production's URLs (other environment: 401 or 404), and under paths no route matches.
        for (const path of [
          `/v1/transactions/${secrets.encodedEmail}`,
          `/v1/generate-url-to-manage-transactions/${secrets.encodedEmail}`,
          `/v1/check-licence/${licensed.productId}/${licence}`,
          `/manage/${secrets.manageToken}`,
          `/admin/${secrets.adminToken}`,
          `/admin/s/${session}`,
          `/manage/${secrets.manageToken}/more`,
          `/sandbox/admin/${secrets.adminToken}/more`,
          `/sandbox/v1/transactions/${secrets.encodedEmail}/more`,
          `/${secrets.licence}/x`,
        ]) {
          await visit(`${server.url}${path}`, authorization);
        }
        await visit(`${server.url}/sandbox/manage/${secrets.manageToken}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'x=1',
        });

        const completed = () =>
          logLines(server.stdout.slice(logStart)).filter((line) => line.msg === 'request completed').length;
        await within(
          (async () => {
            while (completed() < requests) await new Promise((done) => setTimeout(done, 20));
          })(),
          'the request log lines',
        );
        const log = server.stdout.slice(logStart) + server.stderr;
        for (const [name, value] of Object.entries({ ...secrets, ...(session.length >= 16 ? { session } : {}) })) {
          assert.equal(log.includes(value), false, `the ${name} ${value} is not in the log:\n${log}`);
        }
        assert.equal(log.toLowerCase().includes('anna'), false, 'no part of the e-mail is in the log');

        const urls = new Set(logLines(log).flatMap((line) => [line.req?.url, line.res?.url]));
        for (const pattern of [
          '/sandbox/v1/transactions/:email',
          '/sandbox/v1/generate-url-to-manage-transactions/:customerEmail',
          '/sandbox/v1/check-licence/:productId/:licence',
          '/sandbox/manage/:token',
          '/sandbox/admin/:token',
          '/v1/transactions/:email',
          '/manage/:token',
          '/manage/*',
          '/sandbox/admin/*',
          '/sandbox/v1/transactions/*',
          '/*',
        ]) {
          assert.ok(urls.has(pattern), `${pattern} is logged; logged: ${[...urls].join(' ')}`);
        }
        const lines = logLines(log).filter(
          (line) => line.msg === 'incoming request' || line.msg === 'request completed',
        );
        for (const line of lines) assert.equal(typeof (line.req ?? line.res).url, 'string', JSON.stringify(line));
      } finally {
        await server.kill();
        await drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
