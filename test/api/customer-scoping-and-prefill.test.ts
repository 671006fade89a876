import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Environment } from '../../src/domain/model.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Customers belong to one vendor and one environment (docs/decisions.md, "Environments and
 * credentials"): the same e-mail at two vendors is two customers, each with the name given there.
 * And whatever a link pre-fills on the hosted checkout comes back as text, never as markup.
 */

/** The text an HTML attribute value stands for: every character reference decoded. */
function decodeAttribute(value: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#')
      return String.fromCodePoint(ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
    return named[ref.toLowerCase()] ?? whole;
  });
}

for (const kind of await storeKinds()) {
  describe(`customers per vendor and escaped checkout prefill (${kind})`, () => {
    let t: TestApp;
    let a: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (a = vendor)), 'Alpha Tools');

    const EMAIL = 'same@example.com';
    const invoiceText = async (transactionId: string, environment: Environment = 'sandbox') => {
      const [payment] = await t.services.store.entries.listForTransaction(transactionId);
      assert.ok(payment, `transaction ${transactionId} has a payment`);
      const res = await fetch(`${t.url}${environment === 'sandbox' ? '/sandbox' : ''}/invoice/${payment.hashId}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      return pdfText(Buffer.from(await res.arrayBuffer()));
    };
    const idsListed = async (v: TestVendor, path: string, environment: Environment = 'sandbox') => {
      const res = await v.api(path, { environment });
      assert.equal(res.status, 200, res.text);
      return (res.json as Array<{ id: string }>).map((tx) => tx.id);
    };

    test('two vendors selling to the same e-mail keep separate customers: each invoice names its own buyer, each API lists only its own sale', async () => {
      const b = await t.newVendor('Beta Games');
      const alphaSale = await a.buy((await a.product({ type: 'ONETIME', name: 'Alpha licence' })).id, {
        email: EMAIL,
        firstName: 'Alice',
        lastName: 'Anders',
      });
      const betaSale = await b.buy((await b.product({ type: 'ONETIME', name: 'Beta licence' })).id, {
        email: EMAIL,
        firstName: 'Bruno',
        lastName: 'Berg',
      });
      // The same vendor's production is another environment, with a customer of its own too.
      const liveSale = await a.buy(
        (await a.product({ type: 'ONETIME', name: 'Alpha live' }, 'production')).id,
        { email: EMAIL, firstName: 'Paula', lastName: 'Prod' },
        'production',
      );

      const alphaInvoice = await invoiceText(alphaSale);
      assert.ok(alphaInvoice.includes('Alice Anders'), alphaInvoice);
      assert.ok(alphaInvoice.includes('Alpha Tools'), alphaInvoice);
      for (const other of ['Bruno Berg', 'Paula Prod', 'Beta Games'])
        assert.ok(!alphaInvoice.includes(other), `${other} not in: ${alphaInvoice}`);
      const betaInvoice = await invoiceText(betaSale);
      assert.ok(betaInvoice.includes('Bruno Berg'), betaInvoice);
      assert.ok(betaInvoice.includes('Beta Games'), betaInvoice);
      for (const other of ['Alice Anders', 'Paula Prod', 'Alpha Tools'])
        assert.ok(!betaInvoice.includes(other), `${other} not in: ${betaInvoice}`);
      const liveInvoice = await invoiceText(liveSale, 'production');
      assert.ok(liveInvoice.includes('Paula Prod'), liveInvoice);
      for (const other of ['Alice Anders', 'Bruno Berg'])
        assert.ok(!liveInvoice.includes(other), `${other} not in: ${liveInvoice}`);

      const byEmail = `/v1/transactions/${encodeURIComponent(EMAIL)}`;
      assert.deepEqual(await idsListed(a, byEmail), [alphaSale]);
      assert.deepEqual(await idsListed(b, byEmail), [betaSale]);
      assert.deepEqual(await idsListed(a, byEmail, 'production'), [liveSale]);
      assert.deepEqual(await idsListed(b, byEmail, 'production'), []);
      assert.deepEqual(await idsListed(a, '/v1/changed-transactions'), [alphaSale]);
      assert.deepEqual(await idsListed(b, '/v1/changed-transactions'), [betaSale]);
      assert.equal((await a.api(`/v1/transaction/${betaSale}`)).status, 404);
      assert.equal((await b.api(`/v1/transaction/${alphaSale}`)).status, 404);
    });

    test('every checkout prefill (names, e-mail, ZIP code, payload) comes back escaped: no injected markup, the exact text in each field', async () => {
      const product = await a.product({ type: 'ONETIME', name: 'Prefill product' });
      const prefill: Record<string, string> = {
        firstName: '<script>alert(1)</script>',
        lastName: '"><img src=x onerror=alert(2)>',
        email: "x'><script>alert(3)</script>@example.com",
        zipCode: '"><img src=x onerror=alert(4)>',
        payload: '</form><script>alert(5)</script>&amp;',
      };
      const res = await fetch(`${t.url}/sandbox/payment/product/${product.id}?${new URLSearchParams(prefill)}`);
      const html = await res.text();
      assert.equal(res.status, 200, html);
      assert.ok(!html.includes('<script>alert'), 'no injected script element');
      assert.ok(!/<img/i.test(html), 'no injected img element');
      assert.ok(!/alert\(\d\)<\/script>/.test(html), 'no closing script tag from a prefill');
      assert.ok(
        html.includes('&#60;script&#62;alert(1)&#60;/script&#62;') ||
          html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'),
        'the escaped first name',
      );

      const valueOf = (pattern: string) => {
        const match = new RegExp(`<input ${pattern}[^>]*? value="([^"]*)"`).exec(html);
        assert.ok(match, `an input ${pattern} with a value`);
        return decodeAttribute(match[1]!);
      };
      assert.equal(valueOf('id="firstName"'), prefill.firstName);
      assert.equal(valueOf('id="lastName"'), prefill.lastName);
      assert.equal(valueOf('id="email"'), prefill.email);
      assert.equal(valueOf('id="zipCode"'), prefill.zipCode);
      assert.equal(valueOf('type="hidden" name="payload"'), prefill.payload);
    });
  });
}
