import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { toUsd } from '../../src/domain/reports/dashboard.ts';
import { buildApp } from '../../src/http/app.ts';
import { createServices } from '../../src/services.ts';
import type { Scope } from '../../src/domain/model.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * The vendor panel as a dashboard, over HTTP on both stores: the overview's figures equal the ledger
 * summed by hand; transactions are searched, filtered, paged and exported; a refund and a cancellation
 * need their confirmation step and happen once; customers show their cards; a credential's secret is
 * shown once after the redirect, and a reload creates no second one.
 */
for (const kind of await storeKinds()) {
  describe(`vendor panel dashboard (${kind})`, () => {
    const clock = fixedClock(new Date('2030-07-01T09:00:00.000Z'));
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    function browser() {
      const jar = new Map<string, string>();
      const remember = (res: Response) => {
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const [name, value] = pair!.split('=');
          if (value) jar.set(name!, value);
          else jar.delete(name!);
        }
      };
      const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      let lastPage = '';
      return {
        /** A GET of this server, or of another process on the same database (`base`). */
        async get(path: string, base = t.url, headers: Record<string, string> = {}) {
          const res = await fetch(`${base}${path}`, { headers: { ...headers, cookie: cookie() }, redirect: 'manual' });
          remember(res);
          const text = await res.text();
          if (res.status === 200) lastPage = text;
          return { status: res.status, html: text, location: res.headers.get('location'), headers: res.headers };
        },
        async post(path: string, fields: Record<string, string>) {
          const token = /name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '';
          const res = await fetch(`${t.url}${path}`, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ csrf: token, ...fields }),
          });
          remember(res);
          return { status: res.status, html: await res.text(), location: res.headers.get('location') };
        },
      };
    }

    async function signUp(email: string) {
      const b = browser();
      await b.get('/panel/signup');
      assert.equal(
        (await b.post('/panel/signup', { company: 'Dash Co', email, password: 'correct horse battery' })).status,
        303,
      );
      const scope: Scope = {
        vendorId: (await t.services.store.panel.findUserByEmail(email))!.vendorId,
        environment: 'sandbox',
      };
      // An open sign-up starts in the sandbox; the operator lets these vendors reach production too.
      await t.services.catalog.enableProduction(scope.vendorId);
      return { b, scope };
    }

    async function buy(
      scope: Scope,
      productId: string,
      email: string,
      extra: { country?: string; currency?: string } = {},
    ) {
      const result = await t.services.purchases.purchase(scope, {
        productId,
        email,
        country: extra.country ?? 'US',
        currency: extra.currency,
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      return result.status === 'PAID' ? result.transaction.id : '';
    }

    test('the overview sums the ledger per currency and in USD; MRR, subscriptions, trials, churn and refunds follow the transactions', async () => {
      const { b, scope } = await signUp('figures@dash.test');
      const app = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 49 },
          { currency: 'EUR', value: 45 },
        ],
      });
      const monthly = await t.services.catalog.createProduct(scope, {
        name: 'Cloud',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
      });
      const yearly = await t.services.catalog.createProduct(scope, {
        name: 'Pro',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        trialDays: 14,
        prices: [{ currency: 'USD', value: 120 }],
      });
      const ids = [
        await buy(scope, app.id, 'ann@example.com'),
        await buy(scope, app.id, 'eva@example.com', { country: 'DE', currency: 'EUR' }),
        await buy(scope, monthly.id, 'carl@example.com'),
        await buy(scope, yearly.id, 'tina@example.com'),
      ];

      // The ledger summed by hand, per currency and in USD.
      const byCurrency: Record<string, number> = {};
      for (const id of ids)
        for (const e of await t.services.store.entries.listForTransaction(id))
          byCurrency[e.currency] = (byCurrency[e.currency] ?? 0) + e.netMinor;
      const usd = Object.entries(byCurrency).reduce((sum, [c, m]) => sum + toUsd(m, c, t.services.rates)!, 0);
      assert.ok(byCurrency.EUR! > 0 && byCurrency.USD! > 0);

      const o = await t.services.dashboard.overview(scope, 'day');
      assert.equal(o.buckets.length, 30);
      assert.equal(o.buckets.at(-1), '2030-07-01');
      assert.deepEqual(Object.fromEntries(o.currencies.map((s) => [s.currency, s.paidTotal])), byCurrency);
      assert.equal(o.usd.paidTotal, usd);
      assert.equal(
        o.currencies.find((s) => s.currency === 'USD')!.paid.at(-1),
        byCurrency.USD,
        "today's bar holds today's payments",
      );
      assert.deepEqual([o.activeSubscriptions, o.trials, o.churned30, o.refunds], [1, 1, 0, 0]);
      assert.equal(o.mrr.usd, 1000, 'the monthly subscription; the trial pays nothing yet');
      const monthlyView = await t.services.dashboard.overview(scope, 'month');
      assert.deepEqual(
        [monthlyView.buckets.length, monthlyView.buckets.at(-1), monthlyView.usd.paidTotal],
        [12, '2030-07', usd],
      );

      let page = await b.get('/panel');
      // Amounts in the vendor's locale: en-US without an Accept-Language.
      assert.equal(
        /data-testid="revenue-usd">\$([\d.,]+)</.exec(page.html)![1]!.replace(/,/g, ''),
        (usd / 100).toFixed(2),
      );
      assert.match(page.html, /data-testid="mrr-usd">\$10\.00</);
      assert.match(page.html, /data-testid="total-EUR">Paid €[\d.,]+, refunded €0\.00</);
      const german = await b.get('/panel', t.url, { 'accept-language': 'de-DE,de;q=0.9' });
      assert.match(german.html, /data-testid="mrr-usd">10,00\u00a0\$</);
      assert.match(german.html, /data-testid="total-EUR">Paid [\d.]+,\d\d\u00a0€, refunded 0,00\u00a0€</);
      assert.match(page.html, /<svg class="chart"[^>]*data-testid="chart-EUR"/);
      assert.match(page.html, /data-testid="vendor-id">TC-VE_/);

      // Refund the one-time USD payment and cancel the monthly subscription through the panel.
      let detail = await b.get(`/panel/transactions/${ids[0]}?env=sandbox`);
      assert.ok(
        !detail.html.includes(`action="/panel/transactions/${ids[0]}/refund`),
        'the detail page has no refund form: only a link to the confirmation',
      );
      const confirm = await b.get(`/panel/transactions/${ids[0]}/refund?env=sandbox`);
      assert.match(confirm.html, /<strong>\$49\.00<\/strong> can be refunded/);
      assert.match(confirm.html, /name="amount"[^>]*value="49\.00"/, 'all that is left, unless the vendor changes it');
      const version = /name="version" value="(\d+)"/.exec(confirm.html)![1]!;
      const refunded = await b.post(`/panel/transactions/${ids[0]}/refund?env=sandbox`, { version });
      assert.equal(refunded.status, 303);
      detail = await b.get(refunded.location!);
      assert.match(detail.html, /Refunded\. Nothing is left to refund\./);
      assert.match(detail.html, /<span class="st bad">Refunded<\/span>/);
      assert.equal(
        (await b.post(`/panel/transactions/${ids[0]}/refund?env=sandbox`, { version })).status,
        400,
        'the same confirmation sent again refunds nothing',
      );
      assert.equal((await t.services.store.entries.listForTransaction(ids[0]!)).length, 2);

      await b.get(`/panel/transactions/${ids[2]}/cancel?env=sandbox`);
      const cancelled = await b.post(`/panel/transactions/${ids[2]}/cancel?env=sandbox`, { version: '1' });
      assert.equal(cancelled.status, 303);
      assert.match((await b.get(cancelled.location!)).html, /Cancelled at period end/);

      const after = await t.services.dashboard.overview(scope, 'day');
      assert.deepEqual(
        [after.activeSubscriptions, after.cancellingSubscriptions, after.churned30, after.refunds],
        [0, 1, 1, 1],
      );
      assert.equal(after.usd.refundedTotal, 4900);
      assert.equal(after.mrr.usd, 0);
      page = await b.get('/panel');
      assert.match(page.html, /data-testid="refunds-usd">\$49\.00</);
      assert.match(page.html, /data-testid="churn">50\.0%/);
    });

    test('transactions: search, filters, paging and the CSV of the filtered list; plain words for every status and type', async () => {
      const { b, scope } = await signUp('list@dash.test');
      const app = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 5 }],
      });
      const sub = await t.services.catalog.createProduct(scope, {
        name: 'Sub',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 7,
        prices: [{ currency: 'USD', value: 3 }],
      });
      for (let i = 0; i < 27; i++) await buy(scope, app.id, `buyer${i}@example.com`);
      const trial = await buy(scope, sub.id, 'Trial.User@example.com');

      let page = await b.get('/panel/transactions?env=sandbox');
      assert.match(page.html, /data-testid="count">28 transactions/);
      assert.equal(page.html.match(/data-testid="transaction"/g)?.length, 25);
      assert.match(page.html, /Page 1 of 2/);
      assert.ok(
        !/ONETIME|SUBSCRIPTION_STATUS|MONTHLY/.test(page.html.replace(/value="[A-Z_]+"/g, '')),
        'no raw enum is shown',
      );
      page = await b.get('/panel/transactions?env=sandbox&page=2');
      assert.equal(page.html.match(/data-testid="transaction"/g)?.length, 3);

      page = await b.get('/panel/transactions?env=sandbox&q=trial.user%40EXAMPLE.com');
      assert.match(page.html, /data-testid="count">1 transaction</);
      assert.ok(page.html.includes(trial));
      assert.match(
        (await b.get(`/panel/transactions?env=sandbox&q=${trial}`)).html,
        /data-testid="count">1 transaction</,
      );
      const trials = (await b.get('/panel/transactions?env=sandbox&status=trial')).html;
      assert.match(trials, /data-testid="count">1 transaction</);
      assert.match(trials, /Subscription, monthly/);
      assert.match(trials, /<span class="st warn">Trial<\/span>/);
      assert.match(
        (await b.get('/panel/transactions?env=sandbox&type=ONETIME')).html,
        /data-testid="count">27 transactions/,
      );
      assert.match(
        (await b.get(`/panel/transactions?env=sandbox&product=${sub.id}`)).html,
        /data-testid="count">1 transaction</,
      );
      assert.match(
        (await b.get('/panel/transactions?env=sandbox&from=2030-07-01&to=2030-07-01')).html,
        /data-testid="count">28 transactions/,
      );
      assert.match(
        (await b.get('/panel/transactions?env=sandbox&from=2030-07-02')).html,
        /data-testid="count">0 transactions/,
      );
      assert.match((await b.get('/panel/transactions?env=production')).html, /data-testid="count">0 transactions/);
      page = await b.get('/panel/transactions?env=sandbox&status=trial');
      assert.match(page.html, /<option value="trial" selected>/, 'the filters keep what was chosen');

      const csv = await b.get('/panel/transactions.csv?env=sandbox&type=ONETIME');
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type')!, /^text\/csv/);
      assert.match(csv.headers.get('content-disposition')!, /attachment/);
      const lines = csv.html.trim().split('\r\n');
      assert.equal(lines.length, 28);
      assert.equal(
        lines[0],
        'id,created_at,email,assigned_email,product,type,frequency,status,currency,net,tax,total,country',
      );
      assert.match(lines[1]!, /,App,One-time,,Paid,USD,5\.00,/);
    });

    test('customers show their transactions and cards; another vendor sees neither', async () => {
      const { b, scope } = await signUp('customers@dash.test');
      const app = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 5 }],
      });
      const vaulted = await t.services.catalog
        .createProduct(scope, { name: 'Meter', type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] })
        .catch(() => undefined);
      await buy(scope, app.id, 'kim@example.com');
      if (vaulted) await buy(scope, vaulted.id, 'kim@example.com').catch(() => undefined);
      const list = await b.get('/panel/customers?env=sandbox');
      assert.match(list.html, /data-testid="count">1 customer</);
      const href = /href="(\/panel\/customers\/[^"]+)"/.exec(list.html)![1]!.replace(/&#38;/g, '&');
      const detail = await b.get(href);
      assert.equal(detail.status, 200);
      assert.match(detail.html, /<h1>kim@example\.com<\/h1>/);
      assert.match(detail.html, /data-testid="transaction"/);
      assert.match((await b.get('/panel/customers?env=sandbox&q=KIM')).html, /data-testid="count">1 customer</);

      const other = await signUp('nosy@dash.test');
      assert.equal((await other.b.get(href)).status, 404);
      assert.match((await other.b.get('/panel/customers?env=sandbox')).html, /data-testid="count">0 customers/);
    });

    test('a new credential is shown once after the redirect, by whichever process it lands on; reloading that page creates no second one and shows no secret', async () => {
      // A second process behind the same port: its own app and services on the same database.
      const other = await buildApp(createServices(t.config, { database: t.services.database, clock }), {
        logger: false,
      });
      await other.listen({ host: '127.0.0.1', port: 0 });
      try {
        const otherUrl = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}`;
        const { b, scope } = await signUp('creds@dash.test');
        await b.get('/panel/developers?env=sandbox');
        const created = await b.post('/panel/credentials?env=sandbox', { action: 'create' });
        assert.equal(created.status, 303);
        assert.equal(created.location, '/panel/developers?env=sandbox&done=credential');
        const shown = await b.get(created.location!, otherUrl);
        const authorization = /data-testid="authorization">([^<]+)</.exec(shown.html)![1]!;
        for (const base of [otherUrl, t.url]) {
          const reload = await b.get(created.location!, base);
          assert.ok(!reload.html.includes(authorization.split(':')[1]!), 'the secret is shown once');
          assert.ok(!reload.html.includes('data-testid="authorization"'));
        }
        assert.equal(
          (await t.services.credentials.list(scope.vendorId)).filter((c) => c.environment === 'sandbox').length,
          1,
        );
        assert.equal(
          (await fetch(`${t.url}/sandbox/v1/transactions/a%40b.test`, { headers: { authorization } })).status,
          200,
        );
      } finally {
        await other.close();
      }
    });

    test('a form with a mistake is shown again with what was typed', async () => {
      const { b } = await signUp('typed@dash.test');
      await b.get('/panel/products?env=sandbox');
      const bad = await b.post('/panel/products?env=sandbox', {
        name: 'Half typed',
        type: 'SUBSCRIPTION',
        frequency: 'YEARLY',
        trialDays: '7',
        prices: 'EUR 5',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /role="alert"/);
      assert.match(bad.html, /id="name" name="name" required maxlength="200" value="Half typed"/);
      assert.match(bad.html, /value="EUR 5"/);
      assert.match(bad.html, /<option value="SUBSCRIPTION" selected>/);
      assert.match(bad.html, /<option value="YEARLY" selected>/);
      await b.get('/panel/coupons?env=sandbox');
    });
  });
}
