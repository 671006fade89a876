import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import {
  storeKinds,
  TEST_CARD,
  useTestApp,
  type ApiResponse,
  type TestApp,
  type TestVendor,
} from '../helpers/test-app.ts';

/**
 * The product API, opentill's own /v1/products (docs/decisions.md §28): list, read, create, update,
 * archive. One vendor's products are another's 404s; each environment sees its own; the checks are
 * the panel's and the CLI's; a price is kept in its currency's own minor units; an update leaves past
 * transactions as they were sold.
 */
const created = (res: ApiResponse) => {
  assert.equal(res.status, 201, res.text);
  return res.json as { id: string; [field: string]: any };
};

for (const kind of await storeKinds()) {
  describe(`product API (${kind})`, () => {
    const clock = fixedClock(new Date('2031-03-01T10:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    const create = (
      body: unknown,
      init: { environment?: 'sandbox' | 'production'; headers?: Record<string, string> } = {},
    ) => v.api('/v1/products', { body, ...init });
    const monthly = (name = 'Cloud') => ({
      name,
      type: 'SUBSCRIPTION',
      chargeFrequency: 'MONTHLY',
      prices: [
        { currency: 'USD', value: 20 },
        { currency: 'EUR', value: 18.5 },
      ],
    });

    test('a created product is read back and listed with its prices, link and dates, in its own environment only', async () => {
      const product = created(
        await create({ ...monthly('Acme Cloud'), description: ' Unlimited projects ', trialDays: 14 }),
      );
      assert.match(product.id, /^TC-PR_/);
      const expected = {
        id: product.id,
        name: 'Acme Cloud',
        description: 'Unlimited projects',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 14,
        issuesLicences: false,
        activationLimit: null,
        prices: [
          { currency: 'USD', value: 20, valueS: '20.00' },
          { currency: 'EUR', value: 18.5, valueS: '18.50' },
        ],
        paymentLink: `${t.config.sandboxUrl}/payment/product/${product.id}`,
        createDate: '2031-03-01T10:00:00.000Z',
        archived: false,
        archivedAt: null,
        seats: null,
      };
      assert.deepEqual(product, expected);
      assert.deepEqual((await v.api(`/v1/products/${product.id}`)).json, expected);
      const list = (await v.api('/v1/products')).json as { id: string }[];
      assert.ok(list.some((p) => p.id === product.id));
      // The checkout sells it at that link.
      assert.equal((await fetch(`${t.url}/sandbox/payment/product/${product.id}`)).status, 200);
      // Production sees none of the sandbox's products.
      assert.equal((await v.api(`/v1/products/${product.id}`, { environment: 'production' })).status, 404);
      const production = (await v.api('/v1/products', { environment: 'production' })).json as { id: string }[];
      assert.ok(!production.some((p) => p.id === product.id));
      // A production credential makes a production product, sold at production's address, unseen by the sandbox.
      const live = created(await create(monthly('Live'), { environment: 'production' }));
      assert.equal(live.paymentLink, `${t.config.baseUrl}/payment/product/${live.id}`);
      assert.equal((await v.api(`/v1/products/${live.id}`, { environment: 'production' })).status, 200);
      assert.equal((await v.api(`/v1/products/${live.id}`)).status, 404);
      const archive = await v.api(`/v1/products/${live.id}/archive`, { method: 'POST' });
      assert.equal(archive.status, 404);
    });

    test("another vendor's product is 404 to read, change and archive, and absent from the list", async () => {
      const theirs = created(await create(monthly('Theirs')));
      const other = await t.newVendor('Other Vendor');
      assert.equal((await other.api(`/v1/products/${theirs.id}`)).status, 404);
      const update = await other.api(`/v1/products/${theirs.id}`, {
        body: { prices: [{ currency: 'USD', value: 1 }] },
      });
      assert.equal(update.status, 404);
      assert.equal(update.json.error, 'NOT_FOUND');
      assert.equal((await other.api(`/v1/products/${theirs.id}/archive`, { method: 'POST' })).status, 404);
      assert.ok(!((await other.api('/v1/products')).json as { id: string }[]).some((p) => p.id === theirs.id));
      const mine = (await v.api(`/v1/products/${theirs.id}`)).json;
      assert.equal(mine.archived, false);
      assert.deepEqual(mine.prices[0], { currency: 'USD', value: 20, valueS: '20.00' });
    });

    test('prices keep each currency’s minor units: JPY has none, KWD three; more decimals than that are refused', async () => {
      const product = created(
        await create({
          name: 'Units',
          type: 'ONETIME',
          prices: [
            { currency: 'usd', value: '19.99' },
            { currency: 'JPY', value: 1000 },
            { currency: 'KWD', value: 1.234 },
          ],
        }),
      );
      assert.deepEqual(product.prices, [
        { currency: 'USD', value: 19.99, valueS: '19.99' },
        { currency: 'JPY', value: 1000, valueS: '1000' },
        { currency: 'KWD', value: 1.234, valueS: '1.234' },
      ]);
      const stored = await t.services.catalog.readProduct(v.scope(), product.id);
      assert.deepEqual(stored.prices, { USD: 1999, JPY: 1000, KWD: 1234 });
      const tooFine = await create({
        name: 'Yen',
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 1 },
          { currency: 'JPY', value: 10.5 },
        ],
      });
      assert.equal(tooFine.status, 400, tooFine.text);
    });

    test('bad input is refused as the panel and the CLI refuse it, with their words, and nothing is created', async () => {
      const before = ((await v.api('/v1/products')).json as unknown[]).length;
      const cases: [body: Record<string, unknown>, error: string][] = [
        [{ name: 'No USD', type: 'ONETIME', prices: [{ currency: 'EUR', value: 5 }] }, 'USD_PRICE_REQUIRED'],
        [{ name: '   ', type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] }, 'INVALID_INPUT'],
        [{ name: 'x'.repeat(201), type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] }, 'INVALID_INPUT'],
        [{ name: 'Trial', type: 'ONETIME', trialDays: 7, prices: [{ currency: 'USD', value: 5 }] }, 'INVALID_INPUT'],
        [{ ...monthly('Long trial'), trialDays: 366 }, 'INVALID_INPUT'],
        [
          { name: 'Period', type: 'ONETIME', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 5 }] },
          'INVALID_INPUT',
        ],
        [{ name: 'Type', type: 'RENTAL', prices: [{ currency: 'USD', value: 5 }] }, 'INVALID_INPUT'],
        [{ name: 'Negative', type: 'ONETIME', prices: [{ currency: 'USD', value: -5 }] }, 'INVALID_INPUT'],
        [
          {
            name: 'Description',
            type: 'ONETIME',
            description: 'd'.repeat(5001),
            prices: [{ currency: 'USD', value: 5 }],
          },
          'INVALID_INPUT',
        ],
      ];
      for (const [body, error] of cases) {
        const res = await create(body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
        assert.equal(res.json.error, error, res.text);
        // The same input through the catalog (what the panel and the CLI call) fails with the same words.
        await assert.rejects(
          t.services.catalog.createProduct(v.scope(), body as never),
          (err: Error) => err.message === res.json.message,
        );
      }
      const unknown = await create({ ...monthly(), currency: 'USD' });
      assert.equal(unknown.status, 400);
      assert.match(unknown.json.message, /unknown field "currency"/);
      assert.equal(((await v.api('/v1/products')).json as unknown[]).length, before);
    });

    test('a retried create with the same Idempotency-Key answers the same product and makes no second one', async () => {
      const key = `create-${kind}-${Date.now()}`;
      const first = created(await create(monthly('Once'), { headers: { 'idempotency-key': key } }));
      const again = created(await create(monthly('Once'), { headers: { 'idempotency-key': key } }));
      assert.equal(again.id, first.id);
      const named = ((await v.api('/v1/products')).json as { name: string }[]).filter((p) => p.name === 'Once');
      assert.equal(named.length, 1);
      const conflict = await create(monthly('Twice'), { headers: { 'idempotency-key': key } });
      assert.equal(conflict.status, 409);
    });

    test('an update changes what it names and keeps the rest; past transactions keep the price and name they were sold with', async () => {
      const product = created(await create({ ...monthly('Old name'), issuesLicences: true, description: 'First' }));
      const sold = await v.buy(product.id, { email: 'early@example.com' });
      const res = await v.api(`/v1/products/${product.id}`, {
        body: { name: 'New name', prices: [{ currency: 'USD', value: 30 }] },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.name, 'New name');
      assert.deepEqual(res.json.prices, [{ currency: 'USD', value: 30, valueS: '30.00' }]);
      assert.equal(res.json.description, 'First');
      assert.equal(res.json.issuesLicences, true);
      assert.equal(res.json.chargeFrequency, 'MONTHLY');
      const past = (await v.api(`/v1/transaction/${sold}`)).json;
      assert.equal(past.netPrice, 20);
      assert.equal(past.productName, 'Old name');
      // An update is checked as a creation is: a blank name is refused, and nothing changes.
      const blank = await v.api(`/v1/products/${product.id}`, {
        body: { name: '  ', prices: [{ currency: 'USD', value: 1 }] },
      });
      assert.equal(blank.status, 400);
      assert.equal((await v.api(`/v1/products/${product.id}`)).json.prices[0].value, 30);
      const later = (await v.api(`/v1/transaction/${await v.buy(product.id, { email: 'late@example.com' })}`)).json;
      assert.equal(later.netPrice, 30);
      assert.equal(later.productName, 'New name');
    });

    test('the period changes until the first sale, and after it is refused with nothing changed', async () => {
      const product = created(await create(monthly('Period')));
      const yearly = await v.api(`/v1/products/${product.id}`, { body: { chargeFrequency: 'YEARLY' } });
      assert.equal(yearly.status, 200, yearly.text);
      assert.equal(yearly.json.chargeFrequency, 'YEARLY');
      await v.buy(product.id);
      const refused = await v.api(`/v1/products/${product.id}`, {
        body: { chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 2 }] },
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error, 'INVALID_STATE');
      const now = (await v.api(`/v1/products/${product.id}`)).json;
      assert.equal(now.chargeFrequency, 'YEARLY');
      assert.equal(now.prices[0].value, 20);
      const empty = await v.api(`/v1/products/${product.id}`, { body: {} });
      assert.equal(empty.status, 400);
      const typed = await v.api(`/v1/products/${product.id}`, { body: { type: 'ONETIME' } });
      assert.equal(typed.status, 400);
      assert.match(typed.json.message, /unknown field "type"/);
    });

    test('an archived product is not sold: checkout, price, purchase and customize-product refuse it', async () => {
      const product = created(await create(monthly('Retired')));
      const earlier = (
        await v.api(`/v1/customize-product/${product.id}`, { body: { prices: [{ currency: 'USD', value: 5 }] } })
      ).json;
      const archived = await v.api(`/v1/products/${product.id}/archive`, { method: 'POST' });
      assert.equal(archived.status, 200, archived.text);
      assert.equal(archived.json.archived, true);
      assert.equal(archived.json.archivedAt, '2031-03-01T10:00:00.000Z');

      const page = await fetch(`${t.url}/sandbox/payment/product/${product.id}`);
      assert.equal(page.status, 403);
      const pageText = await page.text();
      assert.match(pageText, /<title>This product is no longer sold/);
      assert.match(pageText, /no longer sells this product/);
      const price = await fetch(`${t.url}/sandbox/public/v1/price/${product.id}?country=US`);
      assert.equal(price.status, 403);
      await assert.rejects(v.buy(product.id), /no longer sells this product/);
      // A customized link made before the archive sells no more than its product does.
      const customizedPage = await fetch(`${t.url}/sandbox/payment/product/${earlier.customizedProductId}`);
      assert.equal(customizedPage.status, 403);
      await assert.rejects(v.buy(earlier.customizedProductId), /no longer sells this product/);
      const customize = await v.api(`/v1/customize-product/${product.id}`, {
        body: { prices: [{ currency: 'USD', value: 5 }] },
      });
      assert.equal(customize.status, 400);
      assert.equal(customize.json.error, 'INVALID_STATE');
      assert.match(customize.json.message, /archived/);

      const listed = (await v.api('/v1/products?archived=false')).json as { id: string }[];
      assert.ok(!listed.some((p) => p.id === product.id));
      assert.ok(
        ((await v.api('/v1/products?archived=true')).json as { id: string }[]).some((p) => p.id === product.id),
      );

      // Archiving again changes nothing; unarchived, it sells again.
      clock.set(new Date('2031-03-02T10:00:00.000Z'));
      const twice = await v.api(`/v1/products/${product.id}/archive`, { method: 'POST', body: {} });
      assert.equal(twice.json.archivedAt, '2031-03-01T10:00:00.000Z');
      const bodied = await v.api(`/v1/products/${product.id}/archive`, { body: { reason: 'old' } });
      assert.equal(bodied.status, 400);
      const back = await v.api(`/v1/products/${product.id}/unarchive`, { method: 'POST' });
      assert.equal(back.json.archived, false);
      assert.equal(back.json.archivedAt, null);
      assert.match(await v.buy(product.id), /^TC-TR_/);
      clock.set(new Date('2031-03-01T10:00:00.000Z'));
    });

    test('what was sold before the archive goes on: reads, refunds, the management page, licences and renewals', async () => {
      const product = created(await create({ ...monthly('Going on'), issuesLicences: true }));
      const result = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'subscriber@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      if (result.status !== 'PAID') return;
      const id = result.transaction.id;
      assert.equal((await v.api(`/v1/products/${product.id}/archive`, { method: 'POST' })).status, 200);

      assert.equal((await v.api(`/v1/transaction/${id}`)).json.productName, 'Going on');
      const licence = await v.api(`/v1/check-licence/${product.id}/${encodeURIComponent(result.licence!)}`);
      assert.equal(licence.json.status, 'ACTIVE');
      const manage = (await v.api('/v1/generate-url-to-manage-transactions/subscriber%40example.com')).json.url;
      const page = await fetch(`${t.url}${new URL(manage).pathname}${new URL(manage).search}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Going on/);

      const due = (await t.services.store.transactions.find(v.scope(), id))!.nextCharge!;
      clock.set(new Date(Date.parse(due) + 1000));
      try {
        // Every due subscription of this vendor renews (earlier tests sold some): this one among them.
        assert.ok((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed >= 1);
      } finally {
        clock.set(new Date('2031-03-01T10:00:00.000Z'));
      }
      const renewed = (await v.api(`/v1/transaction/${id}`)).json;
      assert.equal(renewed.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(renewed.entries.filter((e: { type: string }) => e.type === 'SUBSCRIPTION_PAYMENT').length, 2);
    });
  });
}
