import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Invoices and credit notes: a PDF for every payment and refund at `{base_url}/invoice/{hashId}`,
 * numbered per vendor and environment, read back as text to check numbers, totals and tax.
 */
for (const kind of await storeKinds()) {
  describe(`invoices (${kind})`, () => {
    const clock = fixedClock(new Date('2030-03-05T09:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)), 'Acme Software GmbH');

    const paymentHash = async (transactionId: string, index = 0) =>
      (await t.services.store.entries.listForTransaction(transactionId))[index]!.hashId;
    const fetchPdf = async (path: string) => {
      const res = await fetch(`${t.url}${path}`);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition'),
        body: Buffer.from(await res.arrayBuffer()),
      };
    };

    test('the invoice of a payment: seller, buyer, country, net, VAT 19 %, total, and the first number', async () => {
      const product = await v.product({
        type: 'ONETIME',
        name: 'Pro licence',
        prices: [
          { currency: 'USD', value: 12 },
          { currency: 'EUR', value: 10 },
        ],
      });
      const id = await v.buy(product.id, {
        email: 'anna@example.com',
        firstName: 'Anna',
        lastName: 'Schmidt',
        country: 'DE',
      });
      const pdf = await fetchPdf(`/sandbox/invoice/${await paymentHash(id)}`);
      assert.equal(pdf.status, 200);
      assert.equal(pdf.type, 'application/pdf');
      assert.match(pdf.disposition!, /filename="invoice-TEST-000001\.pdf"/);
      assert.equal(pdf.body.subarray(0, 5).toString(), '%PDF-');
      const text = await pdfText(pdf.body);
      for (const expected of [
        'Invoice TEST-000001',
        'Sandbox test document',
        'Date: 2030-03-05',
        'Acme Software GmbH',
        'Anna Schmidt',
        'anna@example.com',
        'Country: Germany (DE)',
        'Pro licence',
        `Transaction ${id}`,
      ]) {
        assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
      }
      // Label and amount sit in two columns of one line.
      assert.match(text, /Net amount\s*10,00\s€ VAT 19%\s*1,90\s€ Total paid\s*11,90\s€/);
    });

    test('a refund has a credit note with the next number that names the invoice; the refund record links to it', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Add-on', prices: [{ currency: 'USD', value: 30 }] });
      const id = await v.buy(product.id, { email: 'bob@example.com', country: 'US', region: 'CA' } as any);
      const invoice = await pdfText((await fetchPdf(`/sandbox/invoice/${await paymentHash(id)}`)).body);
      const number = /Invoice (TEST-\d{6})/.exec(invoice)![1]!;
      const refund = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
      assert.equal(refund.status, 200, refund.text);
      const link = new URL(refund.json[0].invoiceLink);
      assert.equal(link.pathname, `/sandbox/invoice/${refund.json[0].hashId}`);
      const pdf = await fetchPdf(link.pathname);
      assert.equal(pdf.status, 200);
      const text = await pdfText(pdf.body);
      const next = `TEST-${String(Number(number.slice(5)) + 1).padStart(6, '0')}`;
      assert.ok(text.includes(`Credit note ${next}`), text);
      assert.ok(text.includes(`Credit for invoice ${number}`), text);
      assert.match(
        text,
        new RegExp(`Total credited\\s*\\$${refund.json[0].amountTotal.toFixed(2).replace('.', '\\.')}`),
      );
      assert.ok(text.includes('Country: United States (US), CA'), text);
    });

    test('numbers are sequential per vendor and environment', async () => {
      const other = await t.newVendor('Other');
      const p1 = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const before = await v.buy(p1.id, { email: 'c1@example.com' });
      const afterId = await v.buy(p1.id, { email: 'c2@example.com' });
      const n = async (tx: string, path = '/sandbox') =>
        /(?:Invoice|Credit note) ((?:TEST-)?\d{6})/.exec(
          await pdfText((await fetchPdf(`${path}/invoice/${await paymentHash(tx)}`)).body),
        )![1]!;
      const first = await n(before);
      assert.equal(Number((await n(afterId)).slice(5)), Number(first.slice(5)) + 1);
      const otherProduct = await other.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      assert.equal(await n(await other.buy(otherProduct.id)), 'TEST-000001', 'another vendor counts from 1');
      const production = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] }, 'production');
      assert.equal(
        await n(await v.buy(production.id, {}, 'production'), ''),
        '000001',
        'production counts on its own, without the test prefix',
      );
    });

    test('a renewal by the billing worker gets its invoice, with the billing period', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Team plan',
        prices: [{ currency: 'USD', value: 20 }],
      } as any);
      const id = await v.buy(product.id, { email: 'sub@example.com' });
      clock.set(new Date('2030-04-05T09:00:00.000Z'));
      await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
      const text = await pdfText((await fetchPdf(`/sandbox/invoice/${await paymentHash(id, 1)}`)).body);
      assert.ok(text.includes('Team plan'), text);
      assert.ok(text.includes('Billing period from 2030-04-05'), text);
      assert.match(text, /Net amount\s*\$20\.00 Tax 0%\s*\$0\.00 Total paid\s*\$20\.00/);
    });

    test('an unknown hash, or a sandbox invoice asked for at the production URL, is a 404 page', async () => {
      assert.equal((await fetchPdf('/sandbox/invoice/TC-BA_NOPE')).status, 404);
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const hash = await paymentHash(await v.buy(product.id, { email: 'd@example.com' }));
      const wrong = await fetchPdf(`/invoice/${hash}`);
      assert.equal(wrong.status, 404);
      assert.match(wrong.type!, /text\/html/);
    });
  });
}
