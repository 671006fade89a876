import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The admin tool behind generate-url-to-admin: the link becomes an 8-hour session, the vendor's
 * transactions are listed and searched, and refund, cancel, assign e-mail and payload work from the
 * detail page; only the vendor's framing origins may frame it; forms need the page's token.
 */
for (const kind of await storeKinds()) {
  describe(`admin tool (${kind})`, () => {
    const clock = fixedClock(new Date('2030-06-10T12:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor('Acme Software');
      await t.services.catalog.updateVendorSettings(v.vendor.id, {
        adminFrameOrigins: ['https://admin.acme.test', 'http://localhost:8080/'],
      });
    });
    after(() => t.close());

    /** Opens a fresh admin link; returns the session page's path. */
    const openAdmin = async (vendor = v) => {
      const link = new URL((await vendor.api('/v1/generate-url-to-admin')).json.url).pathname;
      const res = await fetch(`${t.url}${link}`, { redirect: 'manual' });
      assert.equal(res.status, 303);
      return new URL(res.headers.get('location')!, `${t.url}${link}`).pathname;
    };
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${t.url}${path}`, { headers });
      return { status: res.status, html: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
    };
    const formOf = (html: string, action: string) => {
      const form = new RegExp(
        `<form method="post">(?:(?!</form>).)*name="action" value="${action}"(?:(?!</form>).)*</form>`,
        's',
      ).exec(html)![0];
      return hiddenFields(form);
    };
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const find = async (id: string) => (await t.services.store.transactions.find(v.scope(), id))!;

    test("the list shows the latest transactions and finds them by e-mail and by id; framed only by the vendor's origins", async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Pro', prices: [{ currency: 'USD', value: 25 }] });
      const a = await v.buy(product.id, { email: 'amy@example.com' });
      const b = await v.buy(product.id, { email: 'ben@example.com' });
      const home = await openAdmin();
      const list = await get(home);
      assert.equal(list.status, 200);
      assert.match(list.csp, /frame-ancestors https:\/\/admin\.acme\.test http:\/\/localhost:8080$/);
      assert.ok(list.html.includes(`data-id="${a}"`) && list.html.includes(`data-id="${b}"`));
      // Amounts in the vendor's locale: its browser's Accept-Language, else en-US.
      assert.match(list.html, /<td>\$25\.00<br>/);
      assert.match((await get(home, { 'accept-language': 'de-DE' })).html, /<td>25,00\u00a0\$<br>/);
      const byEmail = await get(`${home}?q=AMY%40example.com`);
      assert.ok(byEmail.html.includes(`data-id="${a}"`));
      assert.ok(!byEmail.html.includes(`data-id="${b}"`));
      const byId = await get(`${home}?q=${b}`);
      assert.equal(byId.html.match(/data-testid="row"/g)?.length, 1);
      assert.match((await get(`${home}?q=not+an+email`)).html, /Search by a whole e-mail address/);
    });

    test('detail with ledger; refund, cancel, assign e-mail and payload from the page, each in the feed or on the record', async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Team',
        prices: [{ currency: 'USD', value: 10 }],
      } as any);
      const sub = await v.buy(plan.id, { email: 'cat@example.com' });
      const one = await v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 7 }] })).id, {
        email: 'cat@example.com',
      });
      const home = await openAdmin();
      const subPage = `${home}/tx/${sub}`;
      const detail = await get(subPage);
      assert.equal(detail.status, 200);
      assert.match(detail.html, /SUBSCRIPTION_PAYMENT/);
      assert.match(detail.html, /Invoice TEST-\d{6}/);

      let res = await post(subPage, { ...formOf(detail.html, 'cancel') });
      assert.equal(res.status, 303);
      assert.equal((await find(sub)).status, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal((await find(sub)).whoCanceled, 'VENDOR');

      const assign = formOf((await get(subPage)).html, 'assign');
      res = await post(subPage, { ...assign, assignEmail: 'Dan@Example.com' });
      assert.equal(res.status, 303);
      assert.equal((await find(sub)).assignedEmail, 'Dan@Example.com');
      res = await post(subPage, { ...assign, assignEmail: 'nope' });
      assert.equal(res.status, 400);

      const payload = formOf((await get(subPage)).html, 'payload');
      res = await post(subPage, { ...payload, payload: '{"seats":5}' });
      assert.equal(res.status, 303);
      assert.equal((await find(sub)).payload, '{"seats":5}');
      assert.equal((await post(subPage, { ...payload, payload: 'x'.repeat(5000) })).status, 400);
      assert.equal((await find(sub)).payload, '{"seats":5}');

      const onePage = `${home}/tx/${one}`;
      const refund = formOf((await get(onePage)).html, 'refund');
      res = await post(onePage, refund);
      assert.equal(res.status, 303);
      assert.equal((await find(one)).status, 'TRANSACTION_STATUS_REFUNDED');
      const again = await post(onePage, refund);
      assert.equal(again.status, 400, 'the same form sent twice refunds nothing more');
      assert.match(await again.text(), /changed since this page was shown/);
      const entries = await t.services.store.entries.listForTransaction(one);
      assert.deepEqual(entries.map((e) => e.type).sort(), ['ONETIME_PAYMENT', 'ONETIME_PAYMENT_REFUND']);
      const feed = (await v.api('/v1/changed-transactions')).json as any[];
      assert.equal(feed.find((e) => e.id === one)?.changeStatus, 'CHANGED_STATUS_REFUNDED');
    });

    test("forms need the page token; another vendor's transaction is not found; sessions end after 8 hours", async () => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const mine = await v.buy(product.id, { email: 'eve@example.com' });
      const other = await t.newVendor('Other');
      const theirs = await other.buy(
        (await other.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] })).id,
      );
      const home = await openAdmin();
      const form = formOf((await get(`${home}/tx/${mine}`)).html, 'refund');
      assert.equal((await post(`${home}/tx/${mine}`, { ...form, formToken: 'forged' })).status, 403);
      assert.equal((await post(`${home}/tx/${mine}`, { action: 'refund', version: form.version! })).status, 403);
      assert.equal((await find(mine)).status, 'ONE_TIME_PAYMENT_STATUS_PAID');
      // Every action needs the token, not only the refund: a cancel, an assigned e-mail, a payload.
      const monthly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 5 }],
      });
      const sub = await v.buy(monthly.id, { email: 'eve@example.com' });
      const subPage = `${home}/tx/${sub}`;
      const forms: Record<string, Record<string, string>> = {
        cancel: {},
        assign: { assignEmail: 'mallory@example.com' },
        payload: { payload: '{"seats":500}' },
      };
      for (const [action, fields] of Object.entries(forms)) {
        const real = formOf((await get(subPage)).html, action);
        for (const token of ['forged', '', undefined]) {
          const { formToken: _dropped, ...withoutToken } = real;
          const sent: Record<string, string> =
            token === undefined ? { ...withoutToken, ...fields } : { ...real, ...fields, formToken: token };
          assert.equal((await post(subPage, sent)).status, 403, `${action} with the token ${String(token)}`);
        }
      }
      const untouched = await find(sub);
      assert.deepEqual(
        [untouched.status, untouched.assignedEmail, untouched.payload],
        ['SUBSCRIPTION_STATUS_ACTIVE', null, null],
      );

      assert.equal((await get(`${home}/tx/${theirs}`)).status, 404);
      assert.equal((await post(`${home}/tx/${theirs}`, form)).status, 404);
      assert.equal(
        (await t.services.store.transactions.find(other.scope(), theirs))!.status,
        'ONE_TIME_PAYMENT_STATUS_PAID',
      );
      const otherHome = await openAdmin(other);
      assert.match(
        (await get(otherHome)).csp,
        /frame-ancestors 'none'/,
        'a vendor without framing origins cannot be framed',
      );
      assert.ok(!(await get(otherHome)).html.includes(mine));

      clock.advance(8 * 3600_000);
      assert.equal((await get(home)).status, 410);
      assert.equal((await post(`${home}/tx/${mine}`, form)).status, 410);
    });

    test('framing origins are validated: a path, a bad scheme or junk is refused', async () => {
      for (const bad of ['https://admin.acme.test/path', 'ftp://acme.test', 'not a url', 'https://user:pw@acme.test']) {
        await assert.rejects(
          t.services.catalog.updateVendorSettings(v.vendor.id, { adminFrameOrigins: [bad] }),
          /not an origin/,
          bad,
        );
      }
      assert.deepEqual((await t.services.store.vendors.find(v.vendor.id))!.adminFrameOrigins, [
        'https://admin.acme.test',
        'http://localhost:8080',
      ]);
    });
  });
}
