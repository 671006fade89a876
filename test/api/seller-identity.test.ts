import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { AppError } from '../../src/domain/errors.ts';
import { parseExchangeRateDays } from '../../src/domain/money/index.ts';
import { hiddenFields, paidForm } from '../../support/checkout-form.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Before production, the seller's identity is complete (issue 34, docs/decisions.md §24), on both
 * stores: a vendor's production checkout stays closed until its legal name, address, country and tax
 * ID are set (the page, tc.buy, the form's purchase, a charge of a stored card), also once one is
 * cleared after being set; the sandbox never is. With SELLER_OF_RECORD=operator it is the operator's
 * four, and one of them unset closes every vendor's. A French seller reverse-charges a German business
 * from its first production sale.
 */
const OPERATOR = {
  SELLER_OF_RECORD: 'operator',
  SELLER_NAME: 'Platform SAS',
  SELLER_ADDRESS: '5 rue de la Paix | 75002 Paris',
  SELLER_COUNTRY: 'FR',
  SELLER_TAX_ID: 'FR40303265045',
};
const AUGUST_RATES = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <Cube><Cube time="2031-08-29"><Cube currency="USD" rate="1.2000"/></Cube></Cube>
</gesmes:Envelope>`;
const BLANK = { sellerName: '', address: '', country: '', taxId: '' };

const page = (t: TestApp, productId: string, prefix = '') => fetch(`${t.url}${prefix}/payment/product/${productId}`);
const tcBuy = (t: TestApp, productId: string, prefix = '') =>
  fetch(`${t.url}${prefix}/public/v1/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ productId }),
  });
const liveProduct = (v: TestVendor, type = 'ONETIME') =>
  v.product({ type, prices: [{ currency: 'USD', value: 30 }] }, 'production');
const refusedPurchase = async (promise: Promise<unknown>, missing: RegExp) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError && err.code === 'FORBIDDEN', `refused: ${String(err)}`);
  assert.match(err.message, missing);
};

for (const kind of await storeKinds()) {
  describe(`the seller's identity before production (${kind})`, () => {
    test('without it the production checkout refuses at the page, tc.buy and the purchase, saying what is missing; the sandbox sells', async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor('Acme');
        await t.services.catalog.updateVendorSettings(v.vendor.id, { ...BLANK, country: 'DE' });
        const live = await liveProduct(v);
        const res = await page(t, live.id);
        assert.equal(res.status, 403);
        const html = await res.text();
        assert.match(html, /<h1>This seller cannot take payments yet<\/h1>/);
        assert.match(html, /legal name, address, tax ID must be set first/);
        assert.doesNotMatch(html, /cardNumber|name="email"/, 'no form to fill in');
        const started = await tcBuy(t, live.id);
        assert.equal(started.status, 403);
        const body = (await started.json()) as { error: string; message: string };
        assert.equal(body.error, 'FORBIDDEN');
        assert.match(body.message, /cannot take payments yet/);
        await refusedPurchase(v.buy(live.id, {}, 'production'), /legal name, address, tax ID/);

        const test = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
        assert.equal((await page(t, test.id, '/sandbox')).status, 200);
        assert.equal((await tcBuy(t, test.id, '/sandbox')).status, 200);
        await v.buy(test.id);
      } finally {
        await t.close();
      }
    });

    test('cleared after being set: the page closes, and a form loaded before is refused on Pay with nothing charged', async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor('Acme');
        const live = await liveProduct(v);
        const opened = await page(t, live.id);
        assert.equal(opened.status, 200);
        const form = hiddenFields(await opened.text());
        await t.services.catalog.updateVendorSettings(v.vendor.id, { taxId: '' });
        assert.equal((await page(t, live.id)).status, 403);
        const paid = await fetch(`${t.url}/payment/product/${live.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: paidForm(form, { token: form.token!, email: 'late@example.com', firstName: 'A', lastName: 'B' }),
        });
        assert.equal(paid.status, 403);
        assert.match(await paid.text(), /This seller cannot take payments yet[^]*tax ID must be set first/);
        assert.deepEqual((await v.api('/v1/transactions/late%40example.com', { environment: 'production' })).json, []);

        await t.services.catalog.updateVendorSettings(v.vendor.id, { taxId: 'DE123456789' });
        assert.equal((await page(t, live.id)).status, 200);
        await v.buy(live.id, {}, 'production');
      } finally {
        await t.close();
      }
    });

    test('a stored card is not charged in production without it; the sandbox charges', async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor('Acme');
        const charge = async (environment: 'production' | 'sandbox') => {
          const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] }, environment);
          const id = await v.buy(product.id, { email: 'vault@example.com' }, environment);
          return (body: unknown) => v.api(`/v1/charge-vaulted/${id}`, { body, environment });
        };
        const live = await charge('production');
        const sandbox = await charge('sandbox');
        await t.services.catalog.updateVendorSettings(v.vendor.id, { address: '' });
        const refused = await live({ prices: [{ currency: 'USD', value: 10 }] });
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.json.error, 'FORBIDDEN');
        assert.match(refused.json.message, /address must be set first/);
        assert.equal((await sandbox({ prices: [{ currency: 'USD', value: 10 }] })).json.status, 'SUCCESS');
      } finally {
        await t.close();
      }
    });

    test('a French seller reverse-charges a German business with a valid VAT ID from its first production sale', async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor('Acme SARL');
        await t.services.catalog.updateVendorSettings(v.vendor.id, { country: 'FR', taxId: 'FR40303265045' });
        const live = await liveProduct(v);
        const id = await v.buy(
          live.id,
          {
            email: 'einkauf@firma.example',
            country: 'DE',
            currency: 'EUR',
            businessName: 'Firma GmbH',
            vatId: 'DE136695976',
            buyerAddress: 'Hauptstraße 5, 10115 Berlin',
          },
          'production',
        );
        const stored = await t.services.store.transactions.find(v.scope('production'), id);
        assert.equal(stored?.reverseCharge, true);
        const [entry] = await t.services.store.entries.listForTransaction(id);
        assert.deepEqual([entry?.taxMinor, entry?.netMinor === entry?.amountTotalMinor], [0, true]);
      } finally {
        await t.close();
      }
    });

    test('operator as seller: its identity on every vendor’s invoice, on the vendor’s behalf, and its country in the tax returns', async () => {
      const t = await startTestApp(kind, { env: OPERATOR, clock: fixedClock(new Date('2031-08-15T10:00:00.000Z')) });
      try {
        const v = await t.newVendor('Acme');
        // The vendor's own details do not matter here: the operator sells.
        await t.services.catalog.updateVendorSettings(v.vendor.id, { ...BLANK, sellerName: 'Acme GmbH' });
        const live = await liveProduct(v);
        assert.equal((await page(t, live.id)).status, 200);
        const id = await v.buy(live.id, { country: 'FR', currency: 'EUR', email: 'client@example.fr' }, 'production');
        const [entry] = await t.services.store.entries.listForTransaction(id);
        const invoice = await t.services.invoices.find('production', entry!.hashId);
        assert.deepEqual(invoice.seller, {
          name: 'Platform SAS',
          email: null,
          onBehalfOf: 'Acme GmbH',
          address: ['5 rue de la Paix', '75002 Paris'],
          country: 'FR',
          taxId: 'FR40303265045',
          supportEmail: null,
          logo: null,
        });
        const pdf = await fetch(`${t.url}/invoice/${entry!.hashId}`);
        assert.equal(pdf.status, 200);
        const { rows } = await t.services.taxReturns.report({
          period: '2031-08',
          scheme: 'oss',
          environment: 'production',
          rates: parseExchangeRateDays(AUGUST_RATES),
        });
        assert.deepEqual(
          rows.map((r) => [r.section, r.jurisdiction]),
          [['domestic', 'FR']],
          "a sale in the operator's own country is its domestic return",
        );
      } finally {
        await t.close();
      }
    });

    test('operator as seller with SELLER_TAX_ID unset: every production checkout is closed, whatever the vendor set; the sandbox sells', async () => {
      const t = await startTestApp(kind, { env: { ...OPERATOR, SELLER_TAX_ID: '' } });
      try {
        const v = await t.newVendor('Acme');
        const live = await liveProduct(v);
        const res = await page(t, live.id);
        assert.equal(res.status, 403);
        assert.match(await res.text(), /the platform operator, who sells for it, has not set its tax ID/);
        await refusedPurchase(v.buy(live.id, {}, 'production'), /has not set its tax ID/);
        assert.deepEqual(t.services.catalog.vendorStatus(v.vendor).seller.missing, ['tax ID']);
        await v.buy((await v.product({ type: 'ONETIME' })).id);
      } finally {
        await t.close();
      }
    });
  });
}

describe('SELLER_OF_RECORD and the operator identity are checked at start', () => {
  const load = (env: Record<string, string>) => () =>
    loadConfig({ OPENTILL_SECRET: 'x'.repeat(40), OPENTILL_DATA_DIR: '/tmp/opentill-test-data', ...env });
  test('a mode other than vendor or operator, and a bad part of the identity, stop the start naming the variable', () => {
    assert.equal(load({})().sellerOfRecord.mode, 'vendor');
    assert.throws(
      load({ SELLER_OF_RECORD: 'platform' }),
      /SELLER_OF_RECORD must be vendor[^]*or operator[^]*"platform"/,
    );
    assert.throws(
      load({ ...OPERATOR, SELLER_COUNTRY: 'XX' }),
      /^Error: SELLER_COUNTRY: The country must be a two-letter code/,
    );
    assert.throws(
      load({ ...OPERATOR, SELLER_NAME: 'a'.repeat(201) }),
      /^Error: SELLER_NAME: The seller name can have at most 200/,
    );
    assert.throws(
      load({ ...OPERATOR, SELLER_ADDRESS: '1|2|3|4|5|6|7' }),
      /^Error: SELLER_ADDRESS: The address can have at most 6 lines/,
    );
    assert.throws(load({ ...OPERATOR, SELLER_TAX_ID: 'FR 40;' }), /^Error: SELLER_TAX_ID: The VAT or tax ID can have/);
    const config = load({ ...OPERATOR, SELLER_ADDRESS: '5 rue de la Paix\n75002 Paris', SELLER_TAX_ID: '' })();
    assert.deepEqual(config.sellerOfRecord, {
      mode: 'operator',
      identity: { name: 'Platform SAS', address: ['5 rue de la Paix', '75002 Paris'], country: 'FR', taxId: null },
    });
  });
});
