import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Business buyers (EU reverse charge) and the ZIP-level US sales tax, through the hosted checkout
 * and the purchase code, on both stores. The seller is in France (SELLER_COUNTRY=FR).
 */
const clock = fixedClock(new Date('2030-05-01T09:00:00.000Z'));

const NY_TABLE = [
  'State,ZipCode,TaxRegionName,StateRate,EstimatedCombinedRate,EstimatedCountyRate,EstimatedCityRate,EstimatedSpecialRate,RiskLevel',
  'NY,10001,NEW YORK CITY,0.04,0.08875,0,0.045,0.00375,1',
  'NY,12901,"PLATTSBURGH, CITY",0.04,0.0800,0.04,0,0,1',
  '',
].join('\n');

for (const kind of await storeKinds()) {
  describe(`business buyers and ZIP-level sales tax (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let productId: string;
    const dir = mkdtempSync(join(tmpdir(), 'opentill-b2b-'));
    before(async () => {
      const table = join(dir, 'ny.csv');
      writeFileSync(table, NY_TABLE);
      t = await startTestApp(kind, {
        clock,
        env: { SELLER_COUNTRY: 'FR', SALES_TAX_FILE: table, TRUST_PROXY: '127.0.0.1' },
      });
      v = await t.newVendor('Acme SAS');
      productId = (
        await v.product({
          type: 'ONETIME',
          name: 'Acme Pro',
          prices: [
            { currency: 'USD', value: 20 },
            { currency: 'EUR', value: 100 },
          ],
        } as never)
      ).id;
    });
    after(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const openPage = async (query = '') => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}${query}`);
      const html = await res.text();
      const form = hiddenFields(html);
      return { status: res.status, html, form };
    };
    const quote = async (query: string) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}/quote?${query}`, {
        headers: { accept: 'application/json' },
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const pay = async (fields: Record<string, string>) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ cardNumber: '4242424242424242', cardExpiry: '12/34', cardCvc: '123', ...fields }),
      });
      return { status: res.status, html: await res.text() };
    };
    const transactionsOf = async (email: string) =>
      (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as any[];

    test('a German business with a valid VAT ID buying from a French seller pays 0% "Reverse charge"; the transaction keeps the ID and name', async () => {
      const q = await quote('country=DE&vatId=de%20123%20456%20789');
      assert.equal(q.status, 200);
      assert.deepEqual(
        [q.json.currency, q.json.taxMinor, q.json.totalMinor, q.json.taxRate, q.json.taxName, q.json.reverseCharge],
        ['EUR', 0, 10000, '0', 'Reverse charge', true],
      );

      const page = await openPage('?country=DE');
      assert.match(page.html, /Buying for a business/);
      const paid = await pay({
        ...page.form,
        email: 'buyer@firma.example',
        country: 'DE',
        businessName: 'Firma GmbH',
        buyerAddress: 'Hauptstraße 5\r\n\r\n  10115 Berlin  ',
        vatId: 'DE 123 456 789',
        expectedTotal: '10000',
      });
      assert.equal(paid.status, 200, paid.html);
      assert.match(paid.html, /Reverse charge/);
      assert.match(paid.html, /DE123456789/);

      const [listed] = await transactionsOf('buyer@firma.example');
      const stored = await t.services.store.transactions.find(
        v.scope(),
        listed.id ?? listed.transactionId ?? listed.transaction_id,
      );
      assert.ok(stored, JSON.stringify(listed));
      assert.deepEqual(
        [
          stored.businessName,
          stored.buyerAddress,
          stored.buyerVatId,
          stored.reverseCharge,
          stored.taxRate,
          stored.taxName,
          stored.taxMinor,
          stored.netMinor,
        ],
        ['Firma GmbH', 'Hauptstraße 5\n10115 Berlin', 'DE123456789', true, '0', 'Reverse charge', 0, 10000],
      );
      const entries = await t.services.store.entries.listForTransaction(stored.id);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.taxRate, '0');
      assert.equal(entries[0]!.taxMinor, 0);
      assert.equal(entries[0]!.amountTotalMinor, 10000);
    });

    test('no reverse charge for a consumer, for a same-country seller, or for a VAT ID from outside the EU', async () => {
      const consumer = await quote('country=DE');
      assert.deepEqual(
        [consumer.json.taxName, consumer.json.taxRate, consumer.json.reverseCharge],
        ['VAT', '0.19', false],
      );

      const french = await quote('country=FR&vatId=FR12345678901');
      assert.deepEqual([french.json.taxName, french.json.taxRate, french.json.reverseCharge], ['VAT', '0.2', false]);
      const id = await v.buy(productId, {
        country: 'FR',
        email: 'achat@societe.example',
        businessName: 'Société SA',
        buyerAddress: '1 rue X\nParis',
        vatId: 'FR12345678901',
      });
      const stored = (await t.services.store.transactions.find(v.scope(), id))!;
      assert.deepEqual(
        [stored.reverseCharge, stored.buyerVatId, stored.taxRate, stored.businessName],
        [false, 'FR12345678901', '0.2', 'Société SA'],
      );

      const consumerId = await v.buy(productId, { country: 'DE', email: 'person@example.com' });
      const consumerTx = (await t.services.store.transactions.find(v.scope(), consumerId))!;
      assert.deepEqual(
        [consumerTx.reverseCharge, consumerTx.buyerVatId, consumerTx.businessName, consumerTx.taxRate],
        [false, null, null, '0.19'],
      );

      const swiss = await quote('country=CH&vatId=CHE-123.456.789');
      assert.equal(swiss.json.reverseCharge, false);
      assert.equal(swiss.json.vatIdError, undefined, 'outside the EU the ID is not marked wrong');
    });

    test('an invalid VAT ID gives no reverse charge: the quote marks it and the checkout refuses it, charging nothing', async () => {
      const q = await quote('country=DE&vatId=DE12345');
      assert.equal(q.json.reverseCharge, false);
      assert.equal(q.json.taxRate, '0.19');
      assert.match(q.json.vatIdError, /format of a VAT ID from DE/);
      const wrongCountry = await quote('country=DE&vatId=FR12345678901');
      assert.match(wrongCountry.json.vatIdError, /starts with DE, not FR/);

      const page = await openPage('?country=DE');
      const refused = await pay({
        ...page.form,
        email: 'bad@firma.example',
        country: 'DE',
        businessName: 'Firma GmbH',
        buyerAddress: 'Hauptstraße 5',
        vatId: 'DE12345',
      });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /id="vatId"[^>]*aria-invalid="true"/);
      assert.deepEqual(await transactionsOf('bad@firma.example'), []);
      await assert.rejects(
        v.buy(productId, { country: 'DE', email: 'bad2@firma.example', businessName: 'X', vatId: 'DE1' }),
        /VAT ID/,
      );
    });

    test('a business buyer gives the street and city the invoice must name: without them the field is marked and nothing is charged', async () => {
      const page = await openPage('?country=DE');
      const fields = {
        ...page.form,
        email: 'noaddress@firma.example',
        country: 'DE',
        businessName: 'Firma GmbH',
        vatId: 'DE123456789',
        expectedTotal: '10000',
      };
      const refused = await pay({ ...fields, buyerAddress: ' \n ' });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /id="buyerAddress"[^>]*aria-invalid="true"/);
      assert.match(refused.html, /id="buyerAddress-error">Enter the company&#39;s street and city/);
      assert.match(refused.html, /<details class="business" open>/, 'the business section stays open');
      assert.match(refused.html, /id="businessName"[^>]*value="Firma GmbH"/, 'what was typed is kept');
      assert.deepEqual(await transactionsOf('noaddress@firma.example'), []);
      // Long addresses are cut to what an invoice prints: four lines of 100 characters.
      const long = await pay({ ...fields, buyerAddress: ['a'.repeat(150), 'b', 'c', 'd', 'e'].join('\n') });
      assert.equal(long.status, 200, long.html);
      const [listed] = await transactionsOf('noaddress@firma.example');
      const stored = (await t.services.store.transactions.find(v.scope(), listed.id))!;
      assert.equal(stored.buyerAddress, ['a'.repeat(100), 'b', 'c', 'd'].join('\n'));
    });

    test('in production the country a buyer picks is honoured only when the address tells nothing', async () => {
      const live = (
        await v.product(
          {
            type: 'ONETIME',
            name: 'Acme Pro',
            prices: [
              { currency: 'USD', value: 20 },
              { currency: 'EUR', value: 100 },
            ],
          } as never,
          'production',
        )
      ).id;
      // Requests from loopback have no country: the checkout shows the list and prices by the choice.
      const res = await fetch(`${t.url}/payment/product/${live}/quote?country=DE`, {
        headers: { accept: 'application/json' },
      });
      const json = (await res.json()) as any;
      assert.deepEqual([res.status, json.currency, json.taxRate], [200, 'EUR', '0.19']);
      const page = await (await fetch(`${t.url}/payment/product/${live}?country=DE`)).text();
      assert.match(page, /<select id="country" name="country"/);
      assert.match(page, /<option value="DE" selected>Germany<\/option>/);
      // An address with a known country decides, whatever the buyer picks.
      const fromUs = await fetch(`${t.url}/payment/product/${live}/quote?country=DE`, {
        headers: { accept: 'application/json', 'x-forwarded-for': '8.8.8.8' },
      });
      assert.equal(((await fromUs.json()) as any).currency, 'USD');
      const pageFromUs = await (
        await fetch(`${t.url}/payment/product/${live}?country=DE`, { headers: { 'x-forwarded-for': '8.8.8.8' } })
      ).text();
      assert.match(pageFromUs, /<input id="country" value="United States" readonly/);
    });

    test('US: a ZIP code in the imported table pays its combined rate; one not in it pays the state rate, shown as estimated', async () => {
      const nyc = await quote('country=US&zipCode=10001');
      assert.deepEqual(
        [nyc.json.taxRate, nyc.json.taxMinor, nyc.json.totalMinor, nyc.json.taxName, nyc.json.taxEstimated],
        ['0.08875', 178, 2178, 'Sales tax', false],
      );
      const publicPrice = (await (
        await fetch(`${t.url}/sandbox/public/v1/price/${productId}?country=US&zip=10001`)
      ).json()) as any;
      assert.deepEqual([publicPrice.taxRate, publicPrice.tax, publicPrice.price], [0.08875, 1.78, 21.78]);
      assert.equal('taxEstimated' in publicPrice, false, 'the public price keeps the fields of the spec');

      const albany = await quote('country=US&zipCode=12207');
      assert.deepEqual([albany.json.taxRate, albany.json.taxEstimated], ['0.04', true]);
      const page = await openPage('?country=US&zipCode=12207');
      assert.match(page.html, /data-testid="tax-estimated">estimated</);
      const exact = await openPage('?country=US&zipCode=10001');
      assert.doesNotMatch(exact.html, /tax-estimated/);

      const id = await v.buy(productId, { country: 'US', region: 'NY', zip: '10001', email: 'nyc@example.com' });
      const stored = (await t.services.store.transactions.find(v.scope(), id))!;
      assert.deepEqual([stored.taxRate, stored.taxMinor], ['0.08875', 178]);
      assert.equal(stored.postalCode, '10001');
    });

    test("a US subscription's renewals are taxed by its ZIP code like its first payment", async () => {
      const monthly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20 }],
      });
      const id = await v.buy(monthly.id, {
        country: 'US',
        region: 'NY',
        zip: '10001',
        email: 'nyc-monthly@example.com',
      });
      const due = (await t.services.store.transactions.find(v.scope(), id))!.nextCharge!;
      clock.set(new Date(Date.parse(due) + 1000));
      const report = await t.services.billing.runDue();
      assert.ok(report.renewed >= 1, JSON.stringify(report));
      const entries = await t.services.store.entries.listForTransaction(id);
      assert.deepEqual(
        entries.map((e) => [e.type, e.taxRate, e.taxMinor]),
        [
          ['SUBSCRIPTION_PAYMENT', '0.08875', 178],
          ['SUBSCRIPTION_PAYMENT', '0.08875', 178],
        ],
      );
    });

    test('the US return is per state, and per ZIP where the imported table has the ZIP (issue 34)', async () => {
      const seller = await t.newVendor('Zip Returns Ltd');
      const product = await seller.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      for (const zip of ['10001', '10001', '12901', '12207'])
        await seller.buy(product.id, {
          country: 'US',
          region: 'NY',
          zip,
          currency: 'USD',
          email: `${zip}@example.com`,
        });
      const { rows } = await t.services.taxReturns.report({
        period: '2030',
        scheme: 'us',
        environment: 'sandbox',
        vendorId: seller.vendor.id,
        rates: [],
      });
      assert.deepEqual(
        rows.map((r) => [r.jurisdiction, r.zip, r.taxRegion, r.taxRate, r.netMinor, r.taxMinor, r.entries]),
        [
          ['US-NY', null, null, '0.04', 2000, 80, 1],
          ['US-NY', '10001', 'NEW YORK CITY', '0.08875', 4000, 356, 2],
          ['US-NY', '12901', 'PLATTSBURGH, CITY', '0.0800', 2000, 160, 1],
        ],
        'Albany (12207) is not in the table: the state row, at the state rate',
      );
    });
  });
}
