import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { startTestApp, storeKinds, TEST_SELLER, type TestApp } from '../helpers/test-app.ts';

/**
 * Who may make a vendor account in the panel (PANEL_SIGNUP, docs/decisions.md §19). By default
 * nobody: the sign-up page and form are refused with a page that says how the operator adds a vendor.
 * `invite`: only through the operator's invitation, once, within a week. `open`: anyone, but the new
 * vendor works in the sandbox only, everywhere production is reached (panel, API credentials, admin
 * tool, checkout), until the operator enables production.
 */

/** A browser of sorts: keeps cookies, sends the form token of the last page (or a forged pair of its own). */
function browser(t: TestApp) {
  const jar = new Map<string, string>();
  let lastPage = '';
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=');
      if (value) jar.set(name!, value);
      else jar.delete(name!);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    jar,
    async get(path: string) {
      const res = await fetch(`${t.url}${path}`, { headers: { cookie: cookie() }, redirect: 'manual' });
      remember(res);
      lastPage = await res.text();
      return { status: res.status, html: lastPage, location: res.headers.get('location') };
    },
    /** `token`: the page's (default), a double-submit pair made up here (what any script can send), or none. */
    async post(path: string, fields: Record<string, string>, token: 'page' | 'forged' | 'none' = 'page') {
      if (token === 'forged') jar.set('ot_panel_csrf', 'made-up-made-up-made-up');
      const csrf =
        token === 'page' ? (/name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '') : 'made-up-made-up-made-up';
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(token === 'none' ? fields : { csrf, ...fields }),
      });
      remember(res);
      const html = await res.text();
      if (/name="csrf"/.test(html)) lastPage = html;
      return {
        status: res.status,
        html,
        location: res.headers.get('location'),
        session: res.headers.getSetCookie().some((c) => /^ot_panel=[^;]/.test(c)),
      };
    },
  };
}

const vendorCount = async (t: TestApp) => (await t.services.store.vendors.list()).length;
const PASSWORD = 'correct horse battery';

for (const kind of await storeKinds()) {
  describe(`panel sign-up, closed by default (${kind})`, () => {
    test('the sign-up page and form are refused with a page that says how the operator adds a vendor; nothing is made', async () => {
      const t = await startTestApp(kind);
      try {
        const b = browser(t);
        const page = await b.get('/panel/signup');
        assert.equal(page.status, 403);
        assert.match(page.html, /<h1>Sign-up is closed<\/h1>/);
        assert.match(page.html, /opentill vendor create --name/);
        assert.match(page.html, /opentill vendor invite --vendor/);
        assert.doesNotMatch(page.html, /<form/);
        const signin = await b.get('/panel/signin');
        assert.equal(signin.status, 200);
        assert.doesNotMatch(signin.html, /href="\/panel\/signup"/, 'sign-in no longer links to sign-up');
        assert.match(signin.html, /The operator of this server makes vendor accounts/);

        for (const token of ['none', 'forged'] as const) {
          const post = await b.post(
            '/panel/signup',
            { company: 'Stranger Ltd', email: `stranger-${token}@example.test`, password: PASSWORD },
            token,
          );
          assert.equal(post.status, 403);
          assert.match(post.html, /Sign-up is closed/);
          assert.equal(post.session, false);
        }
        // The rule is the domain's, whatever calls it, and an operator's invitation does not open it either.
        await assert.rejects(
          t.services.panel.signUp({ company: 'X', email: 'direct@example.test', password: PASSWORD }),
          /Sign-up is closed/,
        );
        const { token } = await t.services.panelInvites.issueSignUp('invited@example.test');
        assert.equal((await b.get(`/panel/signup/${token}`)).status, 403);
        assert.equal(
          (await b.post(`/panel/signup/${token}`, { company: 'Invited', password: PASSWORD }, 'forged')).status,
          403,
        );
        assert.equal(await vendorCount(t), 0, 'no vendor was made');
      } finally {
        await t.close();
      }
    });
  });

  describe(`panel sign-up by invitation (${kind})`, () => {
    test('only an invitation signs up: once, for its e-mail, within a week; the vendor reaches production', async () => {
      const clock = fixedClock(new Date('2030-03-01T10:00:00.000Z'));
      const t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'invite' } });
      try {
        const stranger = browser(t);
        const refused = await stranger.get('/panel/signup');
        assert.equal(refused.status, 403);
        assert.match(refused.html, /<h1>Sign-up is by invitation<\/h1>[^]*opentill vendor invite --email/);
        const post = await stranger.post(
          '/panel/signup',
          { company: 'Stranger', email: 'stranger@example.test', password: PASSWORD },
          'forged',
        );
        assert.equal(post.status, 403);
        assert.doesNotMatch((await stranger.get('/panel/signin')).html, /href="\/panel\/signup"/);

        const { token, email } = await t.services.panelInvites.issueSignUp('New.Owner@Example.test');
        const b = browser(t);
        const form = await b.get(`/panel/signup/${token}`);
        assert.equal(form.status, 200);
        assert.match(form.html, /You will sign in with <strong>New\.Owner@Example\.test<\/strong>/);
        assert.doesNotMatch(form.html, /name="email"/, 'the e-mail is the invitation’s, not typed');
        const weak = await b.post(`/panel/signup/${token}`, { company: 'Newco', password: 'short' });
        assert.equal(weak.status, 400);
        assert.match(weak.html, /10 to 200 characters/);
        assert.equal(await vendorCount(t), 0);

        // Someone else's e-mail in the form changes nothing: the account is the invitation's.
        const made = await b.post(`/panel/signup/${token}`, {
          company: 'Newco',
          password: PASSWORD,
          email: 'other@example.test',
        });
        assert.equal(made.status, 303, made.html);
        assert.equal(made.location, '/panel');
        assert.equal(
          (await b.get('/panel?env=production')).status,
          200,
          'signed in, and production is open to an invited vendor',
        );
        const [vendor] = await t.services.store.vendors.list();
        assert.deepEqual([vendor!.name, vendor!.email, vendor!.productionEnabled], ['Newco', email, true]);
        assert.equal((await t.services.store.panel.findUserByEmail('new.owner@example.test'))?.vendorId, vendor!.id);

        const again = browser(t);
        assert.equal((await again.get(`/panel/signup/${token}`)).status, 410, 'used');
        assert.equal(
          (await again.post(`/panel/signup/${token}`, { company: 'Twice', password: PASSWORD }, 'forged')).status,
          410,
        );
        await assert.rejects(
          t.services.panelInvites.issueSignUp('new.owner@example.test'),
          /signs in to a vendor's panel already/,
        );

        const late = await t.services.panelInvites.issueSignUp('late@example.test');
        clock.advance(7 * 24 * 3600_000);
        assert.equal((await again.get(`/panel/signup/${late.token}`)).status, 410, 'a week old');
        assert.equal(
          (await again.post(`/panel/signup/${late.token}`, { company: 'Late', password: PASSWORD }, 'forged')).status,
          410,
        );

        const fresh = await t.services.panelInvites.issueSignUp('fresh@example.test');
        const forged = `${fresh.token.split('.')[0]}.${'A'.repeat(43)}`;
        assert.equal((await again.get(`/panel/signup/${forged}`)).status, 404);
        assert.equal(
          (await again.post(`/panel/signup/${forged}`, { company: 'Forged', password: PASSWORD }, 'forged')).status,
          404,
        );
        const passwordLink = (await t.services.panelInvites.issue(vendor!.id)).token;
        assert.equal(
          (await again.get(`/panel/signup/${passwordLink}`)).status,
          404,
          'a password link is no invitation',
        );
        assert.equal(
          (await again.get(`/panel/invite/${fresh.token}`)).status,
          404,
          'nor an invitation a password link',
        );
        assert.equal(await vendorCount(t), 1);
      } finally {
        await t.close();
      }
    });

    test('two sign-ups with one invitation at once make one vendor', async () => {
      const t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'invite' } });
      try {
        const { token } = await t.services.panelInvites.issueSignUp('race@example.test');
        const statuses = await Promise.all(
          ['A', 'B', 'C'].map((name) =>
            browser(t)
              .post(`/panel/signup/${token}`, { company: name, password: PASSWORD }, 'forged')
              .then((r) => r.status),
          ),
        );
        assert.deepEqual(statuses.sort(), [303, 410, 410]);
        assert.equal(await vendorCount(t), 1);
      } finally {
        await t.close();
      }
    });
  });

  describe(`panel sign-up open to anyone (${kind})`, () => {
    test('two sign-ups with one new e-mail at once make one account; both get the same answer', async () => {
      const t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
      try {
        const statuses = await Promise.all(
          ['A', 'B', 'C'].map((name) =>
            browser(t)
              .post('/panel/signup', { company: name, email: 'same@example.test', password: PASSWORD }, 'forged')
              .then((r) => r.status),
          ),
        );
        assert.deepEqual(statuses, [303, 303, 303]);
        assert.equal(await vendorCount(t), 1);
      } finally {
        await t.close();
      }
    });

    test('the new vendor works in the sandbox; production is refused everywhere until the operator enables it, then it works', async () => {
      const clock = fixedClock(new Date('2030-03-01T10:00:00.000Z'));
      const t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
      try {
        const b = browser(t);
        const form = await b.get('/panel/signup');
        assert.equal(form.status, 200);
        assert.match(form.html, /works in the sandbox[^<]*until the operator of this server enables production/);
        assert.match((await b.get('/panel/signin')).html, /href="\/panel\/signup"/);
        await b.get('/panel/signup');
        assert.equal(
          (await b.post('/panel/signup', { company: 'Open Co', email: 'open@example.test', password: PASSWORD }))
            .status,
          303,
        );
        const vendorId = (await t.services.store.panel.findUserByEmail('open@example.test'))!.vendorId;
        assert.equal((await t.services.store.vendors.find(vendorId))!.productionEnabled, false);
        const production = { vendorId, environment: 'production' as const };

        // The sandbox: pages, a credential, the API.
        assert.equal((await b.get('/panel/products?env=sandbox')).status, 200);
        await b.get('/panel/developers?env=sandbox');
        const created = await b.post('/panel/credentials?env=sandbox', { action: 'create' });
        const sandboxAuth = /data-testid="authorization">([^<]+)</.exec((await b.get(created.location!)).html)![1]!;
        assert.equal(
          (await fetch(`${t.url}/sandbox/v1/transactions/a%40b.test`, { headers: { authorization: sandboxAuth } }))
            .status,
          200,
        );

        // Production in the panel: every page says why and what to ask; every form does nothing.
        for (const path of [
          '/panel',
          '/panel/products',
          '/panel/developers',
          '/panel/settings',
          '/panel/transactions',
          '/panel/customers',
          '/panel/emails',
        ]) {
          const page = await b.get(`${path}?env=production`);
          assert.equal(page.status, 403, path);
          assert.match(page.html, /Production is not enabled for <strong>Open Co<\/strong>/, path);
          assert.ok(page.html.includes(`opentill vendor enable-production --vendor ${vendorId}`), path);
        }
        await b.get('/panel/developers?env=sandbox');
        for (const [path, fields] of [
          ['/panel/credentials', { action: 'create' }],
          ['/panel/products', { name: 'Live', type: 'ONETIME', prices: 'USD 10' }],
          ['/panel/transactions', {}],
          ['/panel/admin-sessions', {}],
        ] as const) {
          const post = await b.post(`${path}?env=production`, fields);
          assert.equal(post.status, 403, path);
          assert.match(post.html, /Production is not enabled/);
        }
        assert.deepEqual(
          (await t.services.credentials.list(vendorId)).map((c) => c.environment),
          ['sandbox'],
          'no production credential',
        );
        assert.deepEqual(await t.services.catalog.listProducts(production), [], 'no production product');
        await assert.rejects(t.services.credentials.issue(production), /Production is not enabled/, 'nor from the CLI');

        // What exists anyway (the operator's own doing, an older backup) is refused too: a credential, a product, an admin link.
        const planted = `live_planted:${'p'.repeat(32)}`;
        await t.services.store.credentials.insert({
          id: newId('credential'),
          vendorId,
          environment: 'production',
          login: 'live_planted',
          secretHash: createHmac('sha256', t.config.secret).update('p'.repeat(32)).digest('hex'),
          createdAt: clock.now().toISOString(),
          revokedAt: null,
        });
        const product = await t.services.catalog.createProduct(production, {
          name: 'Live',
          type: 'ONETIME',
          prices: [{ currency: 'USD', value: 10 }],
        });
        const adminLink = t.services.hostedUrl('admin', production, vendorId);
        const reached = async () => ({
          api: await fetch(`${t.url}/v1/transactions/a%40b.test`, { headers: { authorization: planted } }),
          checkout: (await fetch(`${t.url}/payment/product/${product.id}?country=US`)).status,
          price: (await fetch(`${t.url}/public/v1/price/${product.id}?country=US`)).status,
          admin: (await fetch(adminLink.replace('http://opentill.test', t.url), { redirect: 'manual' })).status,
        });
        const before = await reached();
        assert.equal(before.api.status, 403);
        assert.match(
          ((await before.api.json()) as { message: string }).message,
          /Production is not enabled[^]*opentill vendor enable-production/,
        );
        assert.deepEqual([before.checkout, before.price, before.admin], [404, 404, 403]);
        // Asked again within the credential cache's second: refused from the cache as from the store.
        const cached = await fetch(`${t.url}/v1/transactions/a%40b.test`, { headers: { authorization: planted } });
        assert.equal(cached.status, 403);
        assert.match(((await cached.json()) as { message: string }).message, /Production is not enabled/);

        await t.services.catalog.enableProduction(vendorId);
        clock.advance(2000); // past the credential cache's second
        // Its checkout opens once its seller identity is complete too (docs/decisions.md §24).
        assert.equal((await reached()).checkout, 403);
        await t.services.catalog.updateVendorSettings(vendorId, TEST_SELLER('Signed Up Ltd'));
        const after = await reached();
        assert.deepEqual([after.api.status, after.checkout, after.price, after.admin], [200, 200, 200, 303]);
        assert.equal((await b.get('/panel/products?env=production')).status, 200);
        const issued = await b.post('/panel/credentials?env=production', { action: 'create' });
        assert.equal(issued.status, 303);
        const liveAuth = /data-testid="authorization">([^<]+)</.exec((await b.get(issued.location!)).html)![1]!;
        assert.equal(
          (await fetch(`${t.url}/v1/transactions/a%40b.test`, { headers: { authorization: liveAuth } })).status,
          200,
        );
      } finally {
        await t.close();
      }
    });
  });
}
