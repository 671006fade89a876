import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Sessions of the admin tool are kept on the server (docs/decisions.md §18): checked on every
 * request, stored only as a hash, ended when the panel session that opened them signs out or
 * expires, and revocable by the vendor for a whole environment from the panel's settings.
 */
for (const kind of await storeKinds()) {
  describe(`admin tool sessions (${kind})`, () => {
    const clock = fixedClock(new Date('2030-08-01T08:00:00.000Z'));
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    /** A browser of sorts for the panel: keeps cookies, reads the page's form token. */
    function panelBrowser() {
      const jar = new Map<string, string>();
      let lastPage = '';
      const send = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(`${t.url}${path}`, {
          ...init,
          redirect: 'manual',
          headers: {
            ...(init.headers as Record<string, string>),
            cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          },
        });
        for (const line of res.headers.getSetCookie()) {
          const [name, value] = line.split(';')[0]!.split('=');
          if (value) jar.set(name!, value);
          else jar.delete(name!);
        }
        const html = await res.text();
        if (res.status === 200) lastPage = html;
        return { status: res.status, html, location: res.headers.get('location') };
      };
      return {
        get: (path: string) => send(path),
        post: (path: string, fields: Record<string, string> = {}, withToken = true) =>
          send(path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              ...(withToken ? { csrf: /name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '' } : {}),
              ...fields,
            }),
          }),
      };
    }

    /** Signs up (or, for an e-mail with an account, signs in) and returns the signed-in browser with its vendor. */
    async function signedIn(email: string, mode: 'signup' | 'signin' = 'signup') {
      const b = panelBrowser();
      await b.get(`/panel/${mode}`);
      const res = await b.post(`/panel/${mode}`, {
        company: 'Acme Software',
        email,
        password: 'correct horse battery',
      });
      assert.equal(res.location, '/panel');
      assert.equal((await b.get('/panel')).status, 200);
      const vendorId = (await t.services.store.panel.findUserByEmail(email))!.vendorId;
      // An open sign-up starts in the sandbox; the operator lets these vendors reach production too.
      await t.services.catalog.enableProduction(vendorId);
      return { b, vendorId };
    }

    /** The panel's Transactions button: the admin tool's session path. */
    async function openFromPanel(b: ReturnType<typeof panelBrowser>, environment = 'sandbox') {
      await b.get(`/panel?env=${environment}`);
      const opened = await b.post(`/panel/transactions?env=${environment}`);
      assert.equal(opened.status, 303);
      return opened.location!;
    }

    /** generate-url-to-admin, opened: the admin tool's session path. */
    async function openFromLink(v: Pick<TestVendor, 'api'>, environment: 'sandbox' | 'production' = 'sandbox') {
      const link = new URL((await v.api('/v1/generate-url-to-admin', { environment })).json.url).pathname;
      const res = await fetch(`${t.url}${link}`, { redirect: 'manual' });
      assert.equal(res.status, 303);
      return new URL(res.headers.get('location')!, `${t.url}${link}`).pathname;
    }

    const status = async (path: string) => (await fetch(`${t.url}${path}`)).status;
    const tokenOf = (path: string) => path.split('/').pop()!;
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const rows = () => t.services.database.kysely.selectFrom('admin_sessions').selectAll().execute();

    /** A vendor with API credentials whose panel account is `email`. */
    async function apiOf(vendorId: string): Promise<Pick<TestVendor, 'api'>> {
      const credentials = {
        sandbox: await t.services.credentials.issue({ vendorId, environment: 'sandbox' }),
        production: await t.services.credentials.issue({ vendorId, environment: 'production' }),
      };
      return {
        api: async (path, init = {}) => {
          const environment = init.environment ?? 'sandbox';
          const res = await fetch(`${t.url}${environment === 'sandbox' ? '/sandbox' : ''}${path}`, {
            headers: { authorization: credentials[environment].authorization },
          });
          const text = await res.text();
          return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
        },
      };
    }

    test('a session is kept only as the SHA-256 of its token, with its vendor, environment, opener and expiry', async () => {
      const { b, vendorId } = await signedIn('stored@acme.test');
      const fromPanel = await openFromPanel(b);
      const fromLink = await openFromLink(await apiOf(vendorId));
      assert.equal(await status(fromPanel), 200);
      assert.equal(await status(fromLink), 200);
      const stored = (await rows()).filter((r) => r.vendor_id === vendorId);
      assert.equal(stored.length, 2);
      const panelRow = stored.find((r) => r.id_hash === sha256(tokenOf(fromPanel)))!;
      const linkRow = stored.find((r) => r.id_hash === sha256(tokenOf(fromLink)))!;
      assert.deepEqual(
        [panelRow.environment, panelRow.revoked_at, typeof panelRow.opened_by],
        ['sandbox', null, 'string'],
      );
      assert.deepEqual([linkRow.environment, linkRow.opened_by, linkRow.revoked_at], ['sandbox', null, null]);
      assert.equal(linkRow.expires_at, new Date(clock.now().getTime() + 8 * 3600_000).toISOString());
      const everything = JSON.stringify(await rows());
      for (const path of [fromPanel, fromLink]) assert.ok(!everything.includes(tokenOf(path)), 'no token is stored');
    });

    test('a signed session token the server did not open (the old stateless kind) is refused', async () => {
      const { vendorId } = await signedIn('forged@acme.test');
      const minted = t.services.links.issue(
        'admin-session',
        { vendorId, environment: 'sandbox' },
        vendorId,
        clock.now(),
      );
      assert.equal(await status(`/sandbox/admin/s/${minted}`), 404);
    });

    test('signing out of the panel ends the admin sessions that panel session opened, and no others', async () => {
      const { b, vendorId } = await signedIn('signout@acme.test');
      const mine = await openFromPanel(b);
      const mineInProduction = await openFromPanel(b, 'production');
      const elsewhere = await openFromPanel((await signedIn('signout@acme.test', 'signin')).b);
      const fromLink = await openFromLink(await apiOf(vendorId));
      for (const path of [mine, mineInProduction, elsewhere, fromLink]) assert.equal(await status(path), 200, path);

      await b.get('/panel');
      assert.equal((await b.post('/panel/signout')).status, 303);
      assert.equal(await status(mine), 410);
      assert.equal(await status(`${mine}/tx/TC-TR_0000`), 410);
      assert.match(await (await fetch(`${t.url}${mine}`)).text(), /This session has ended/);
      assert.equal(await status(mineInProduction), 410);
      assert.equal(await status(elsewhere), 200, 'the same vendor signed in elsewhere keeps its session');
      assert.equal(
        await status(fromLink),
        200,
        'a session from a generate-url-to-admin link has no panel session to end with',
      );
    });

    test('a session whose panel session is gone has ended, even one that sign-out did not revoke (opened while it signed out)', async () => {
      const { b } = await signedIn('race@acme.test');
      const opened = await openFromPanel(b);
      const row = (await rows()).find((r) => r.id_hash === sha256(tokenOf(opened)))!;
      await t.services.store.panel.deleteSession(row.opened_by!); // the sign-out's delete, without its revocation
      assert.equal(await status(opened), 410);
    });

    test('a session opened from the panel ends no later than that panel session', async () => {
      const { b } = await signedIn('short@acme.test');
      clock.advance(10 * 3600_000); // the panel session has 2 of its 12 hours left
      const late = await openFromPanel(b);
      clock.advance(2 * 3600_000 - 1000);
      assert.equal(await status(late), 200);
      clock.advance(1000);
      assert.equal(await status(late), 410);
    });

    test("the vendor ends every admin session of one environment from the panel's settings; its forms then change nothing", async () => {
      const { b, vendorId } = await signedIn('revoke@acme.test');
      const api = await apiOf(vendorId);
      const sandboxSessions = [await openFromPanel(b), await openFromLink(api), await openFromLink(api)];
      const production = await openFromLink(api, 'production');
      const scope = { vendorId, environment: 'sandbox' as const };
      const product = await t.services.catalog.createProduct(scope, {
        name: 'Pro',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 9 }],
      });
      const paid = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email: 'buyer@example.com',
        country: 'US',
        card: { number: '4242424242424242', expMonth: 12, expYear: 2035 },
      });
      assert.equal(paid.status, 'PAID');
      const transactionId = (paid as { transaction: { id: string } }).transaction.id;
      const detail = `${sandboxSessions[1]}/tx/${transactionId}`;
      const page = await (await fetch(`${t.url}${detail}`)).text();
      const refundForm = Object.fromEntries(
        [
          .../<form method="post">(?:(?!<\/form>).)*name="action" value="refund"(?:(?!<\/form>).)*<\/form>/s
            .exec(page)![0]
            .matchAll(/name="(\w+)" value="([^"]*)"/g),
        ].map((m) => [m[1]!, m[2]!]),
      );

      const page1 = await b.get('/panel/settings?env=sandbox');
      assert.match(page1.html, /data-testid="revoke-admin-sessions"/);
      assert.equal(
        (await b.post('/panel/admin-sessions?env=sandbox', {}, false)).status,
        403,
        'not without the form token',
      );
      for (const path of sandboxSessions) assert.equal(await status(path), 200);

      await b.get('/panel?env=sandbox');
      const revoked = await b.post('/panel/admin-sessions?env=sandbox');
      assert.equal(revoked.status, 303);
      assert.match((await b.get(revoked.location!)).html, /Every admin tool session of this environment has ended/);
      for (const path of sandboxSessions) assert.equal(await status(path), 410, path);
      const refund = await fetch(`${t.url}${detail}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(refundForm),
      });
      assert.equal(refund.status, 410);
      assert.equal(
        (await t.services.store.transactions.find(scope, transactionId))!.status,
        'ONE_TIME_PAYMENT_STATUS_PAID',
        'nothing refunded',
      );
      assert.equal(await status(production), 200, 'production sessions stay');
      assert.equal(await status(await openFromLink(api)), 200, 'a new link opens a new session');
      assert.equal(await status(await openFromPanel(b)), 200, 'and so does the panel');
    });

    test("one vendor's revocation ends no other vendor's sessions", async () => {
      const a = await signedIn('vendor-a@acme.test');
      const other = await signedIn('vendor-b@acme.test');
      const theirs = await openFromLink(await apiOf(other.vendorId));
      await a.b.get('/panel?env=sandbox');
      assert.equal((await a.b.post('/panel/admin-sessions?env=sandbox')).status, 303);
      assert.equal(await status(theirs), 200);
    });
  });
}
