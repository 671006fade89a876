import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { formBrowser } from '../helpers/form-browser.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The vendor panel over HTTP: sign-up, sign-in, sessions in cookies that expire, forms refused
 * without their token, credentials shown once and usable at once, products with snippets, and one
 * vendor never reaching another's data.
 */
for (const kind of await storeKinds()) {
  describe(`vendor panel (${kind})`, () => {
    const clock = fixedClock(new Date('2030-07-01T09:00:00.000Z'));
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    /** A browser of sorts: keeps cookies, reads the page's form token. */
    const browser = () => formBrowser(t.url);

    async function signUp(email: string, company = 'Acme Software') {
      const b = browser();
      await b.get('/panel/signup');
      const res = await b.post('/panel/signup', { company, email, password: 'correct horse battery' });
      assert.equal(res.status, 303, res.html);
      assert.equal(res.location, '/panel');
      // An open sign-up starts in the sandbox; the operator lets these vendors reach production too.
      await t.services.catalog.enableProduction((await t.services.store.panel.findUserByEmail(email))!.vendorId);
      return b;
    }

    test('sign-up signs in with an HttpOnly, SameSite cookie; the panel opens on the sandbox with security headers', async () => {
      const anonymous = browser();
      const closed = await anonymous.get('/panel');
      assert.equal(closed.status, 303);
      assert.equal(closed.location, '/panel/signin');

      const b = browser();
      await b.get('/panel/signup');
      const res = await b.post('/panel/signup', {
        company: 'Acme Software',
        email: 'owner@acme.test',
        password: 'correct horse battery',
      });
      assert.equal(res.status, 303);
      assert.match(
        res.setCookie.find((c) => c.startsWith('ot_panel='))!,
        /HttpOnly; SameSite=Lax; Max-Age=43200/,
      );
      const page = await b.get('/panel');
      assert.equal(page.status, 200);
      assert.match(page.html, /<h1>Overview<\/h1>/);
      assert.match(page.html, /data-testid="switch" aria-current="true">Sandbox</);
      assert.match(page.html, /<strong>Acme Software<\/strong> <span class="muted">owner@acme\.test/);
      assert.match(page.headers.get('content-security-policy')!, /default-src 'none'.*frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
      await b.get('/panel/signup');
      // An e-mail that has an account: the same answer as a new one (docs/decisions.md §19), but no session.
      assert.equal(
        (await b.post('/panel/signup', { company: 'Again', email: 'OWNER@acme.test', password: 'another long one' }))
          .location,
        '/panel',
      );
      assert.equal((await b.get('/panel')).status, 303);
      const weak = browser();
      await weak.get('/panel/signup');
      assert.match(
        (await weak.post('/panel/signup', { company: 'X', email: 'x@acme.test', password: 'short' })).html,
        /10 to 200 characters/,
      );
    });

    test('sign-in: a wrong password is refused; the right one opens a session that ends after 12 hours or at sign-out', async () => {
      await signUp('sign@acme.test');
      const b = browser();
      await b.get('/panel/signin');
      const wrong = await b.post('/panel/signin', { email: 'sign@acme.test', password: 'not the password' });
      assert.equal(wrong.status, 401);
      assert.match(wrong.html, /e-mail or the password is wrong/);
      await b.get('/panel/signin');
      assert.equal(
        (await b.post('/panel/signin', { email: 'nobody@acme.test', password: 'correct horse battery' })).status,
        401,
      );
      await b.get('/panel/signin');
      assert.equal(
        (await b.post('/panel/signin', { email: 'Sign@Acme.test', password: 'correct horse battery' })).status,
        303,
      );
      assert.equal((await b.get('/panel')).status, 200);
      clock.advance(12 * 3600_000);
      assert.equal((await b.get('/panel')).status, 303, 'the session has expired');

      await b.get('/panel/signin');
      await b.post('/panel/signin', { email: 'sign@acme.test', password: 'correct horse battery' });
      await b.get('/panel');
      assert.equal((await b.post('/panel/signout', {})).status, 303);
      assert.equal((await b.get('/panel')).status, 303);
    });

    test('a credential is shown once and works at its own environment only; revoked, it stops working', async () => {
      const b = await signUp('api@acme.test');
      await b.get('/panel/developers');
      const created = await b.post('/panel/credentials?env=sandbox', { action: 'create' });
      assert.equal(created.status, 303, 'created, then a redirect: a reload creates nothing');
      const shown = await b.get(created.location!);
      const authorization = /data-testid="authorization">([^<]+)</.exec(shown.html)![1]!;
      assert.equal(
        (await fetch(`${t.url}/sandbox/v1/transactions/a%40b.test`, { headers: { authorization } })).status,
        200,
      );
      assert.equal((await fetch(`${t.url}/v1/transactions/a%40b.test`, { headers: { authorization } })).status, 401);
      const again = await b.get('/panel/developers?env=sandbox');
      assert.ok(!again.html.includes(authorization.split(':')[1]!), 'the password is not shown again');

      const id = /name="action" value="revoke"><input type="hidden" name="id" value="([^"]+)"/.exec(again.html)![1]!;
      assert.equal((await b.post('/panel/credentials?env=sandbox', { action: 'revoke', id })).status, 303);
      clock.advance(6000); // past the credential cache's few seconds
      assert.equal(
        (await fetch(`${t.url}/sandbox/v1/transactions/a%40b.test`, { headers: { authorization } })).status,
        401,
      );
    });

    test('products: created per environment with their snippet, payment link and id; bad input is shown, not stored', async () => {
      const b = await signUp('shop@acme.test');
      await b.get('/panel');
      const res = await b.post('/panel/products?env=sandbox', {
        name: 'Acme Pro',
        type: 'SUBSCRIPTION',
        frequency: 'YEARLY',
        trialDays: '14',
        prices: 'USD 99, EUR 89.50',
        licences: 'yes',
      });
      assert.equal(res.status, 303);
      const page = await b.get('/panel/products?env=sandbox');
      const id = /data-testid="product" data-id="([^"]+)"/.exec(page.html)![1]!;
      assert.match(page.html, /Subscription · Yearly · 14-day trial · licences · \$99\.00, €89\.50/);
      assert.ok(page.html.includes(`data-ts-product=&#34;${id}&#34;`), 'the snippet names the product');
      assert.ok(page.html.includes(`/sandbox/payment/product/${id}`));
      assert.equal((await fetch(`${t.url}/sandbox/public/v1/price/${id}?country=US`)).status, 200);

      const production = await b.get('/panel/products?env=production');
      assert.match(production.html, /data-testid="env-production" aria-current="true">Production</);
      assert.match(production.html, /No production products yet/);
      const bad = await b.post('/panel/products?env=sandbox', { name: 'Cheap', type: 'ONETIME', prices: 'EUR 5' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /USD/);
      const junk = await b.post('/panel/products?env=sandbox', {
        name: 'Cheap',
        type: 'ONETIME',
        prices: 'five dollars',
      });
      assert.match(junk.html, /Write prices as/);
      assert.equal((await b.get('/panel/products?env=sandbox')).html.match(/data-testid="product"/g)?.length, 1);
    });

    test("a product is edited (name, prices, licences) and coupons are created and revoked; another vendor's product cannot be edited", async () => {
      const b = await signUp('edit@acme.test');
      await b.get('/panel');
      await b.post('/panel/products?env=sandbox', { name: 'Starter', type: 'ONETIME', prices: 'USD 10' });
      let page = await b.get('/panel/products?env=sandbox');
      const id = /data-testid="product" data-id="([^"]+)"/.exec(page.html)![1]!;
      assert.match(page.html, new RegExp(`id="prices-${id}" name="prices" value="USD 10\\.00"`));
      assert.equal(
        (
          await b.post('/panel/products/edit?env=sandbox', {
            id,
            name: 'Starter plus',
            prices: 'USD 12.50, EUR 11',
            licences: 'yes',
          })
        ).status,
        303,
      );
      const product = (await t.services.store.products.find(
        {
          vendorId: (await t.services.store.panel.findUserByEmail('edit@acme.test'))!.vendorId,
          environment: 'sandbox',
        },
        id,
      ))!;
      assert.deepEqual(
        [product.name, product.prices, product.issuesLicences],
        ['Starter plus', { USD: 1250, EUR: 1100 }, true],
      );
      const price = await (await fetch(`${t.url}/sandbox/public/v1/price/${id}?country=US`)).json();
      assert.equal(price.price, 12.5);
      await b.get('/panel/products?env=sandbox');
      assert.match((await b.post('/panel/products/edit?env=sandbox', { id, name: 'X', prices: 'EUR 5' })).html, /USD/);

      await b.get('/panel/products?env=sandbox');
      assert.equal(
        (
          await b.post('/panel/coupons?env=sandbox', {
            action: 'create',
            productId: id,
            code: 'launch25',
            off: '25%',
            expiresAt: '2031-01-31',
          })
        ).status,
        303,
      );
      await b.get('/panel/coupons?env=sandbox');
      assert.equal(
        (
          await b.post('/panel/coupons?env=sandbox', {
            action: 'create',
            productId: id,
            code: 'FIVE',
            off: 'USD 5, EUR 4.50',
          })
        ).status,
        303,
      );
      page = await b.get('/panel/coupons?env=sandbox');
      assert.match(page.html, /<code>LAUNCH25<\/code> · Starter plus<br><span class="muted">25% off, until 2031-01-31/);
      assert.match(page.html, /<code>FIVE<\/code> · Starter plus<br><span class="muted">\$5\.00, €4\.50 off/);
      const couponId = /name="action" value="revoke"><input type="hidden" name="id" value="(TC-CO_[^"]+)"/.exec(
        page.html,
      )![1]!;
      assert.equal((await b.post('/panel/coupons?env=sandbox', { action: 'revoke', id: couponId })).status, 303);
      assert.match((await b.get('/panel/coupons?env=sandbox')).html, /, revoked/);

      const other = await signUp('other-editor@acme.test', 'Other');
      await other.get('/panel?env=sandbox');
      const foreign = await other.post('/panel/products/edit?env=sandbox', { id, name: 'Hijacked', prices: 'USD 1' });
      assert.equal(foreign.status, 400);
      assert.match(foreign.html, /not found/);
      assert.equal((await t.services.store.products.find(product, id))?.name, 'Starter plus');
    });

    test('forms without the session token change nothing, and one vendor reaches nothing of another', async () => {
      const a = await signUp('a@acme.test', 'Vendor A');
      await a.get('/panel');
      await a.post('/panel/credentials?env=sandbox', { action: 'create' });
      const aPage = await a.get('/panel/developers');
      const aCredential = /name="action" value="revoke"><input type="hidden" name="id" value="([^"]+)"/.exec(
        aPage.html,
      )![1]!;

      const forged = await a.post(
        '/panel/products?env=sandbox',
        { name: 'Forged', type: 'ONETIME', prices: 'USD 1' },
        false,
      );
      assert.equal(forged.status, 403);
      assert.ok(!(await a.get('/panel/products')).html.includes('Forged'));

      const b = await signUp('b@acme.test', 'Vendor B');
      const bPage = await b.get('/panel/developers');
      assert.ok(!bPage.html.includes(aCredential));
      const attempt = await b.post('/panel/credentials?env=sandbox', { action: 'revoke', id: aCredential });
      assert.equal(attempt.status, 400);
      assert.match(
        (await a.get('/panel/developers')).html,
        new RegExp(`value="${aCredential}"`),
        "A's credential is still active",
      );

      // The transactions button opens the admin tool for the signed-in vendor only.
      await b.get('/panel');
      const opened = await b.post('/panel/transactions?env=sandbox', {});
      assert.equal(opened.status, 303);
      assert.match(opened.location!, /^\/sandbox\/admin\/s\//);
      const claims = JSON.parse(Buffer.from(opened.location!.split('/').pop()!.split('.')[0]!, 'base64url').toString());
      assert.notEqual(claims.vendorId, undefined);
      assert.ok(!(await b.get(opened.location!)).html.includes('Vendor A'));
    });
  });
}
