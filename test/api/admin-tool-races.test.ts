import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The admin tool's refund form sent eight times at once: the page's ledger is checked under the row
 * lock of the refund itself, so exactly one payment is refunded. A vaulted method with two charges
 * is the case where a second refund would find another payment to take back.
 */
for (const kind of await storeKinds()) {
  describe(`admin tool under double submits (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor('Racy Software');
    });
    after(() => t.close());

    test('eight parallel submits of one refund form refund exactly one of two vaulted payments', async () => {
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id, { email: 'twice@example.com', country: 'US' });
      for (const value of [10, 20]) {
        const charged = await v.api(`/v1/charge-vaulted/${id}`, {
          method: 'POST',
          body: { prices: [{ currency: 'USD', value }] },
        });
        assert.equal(charged.json.status, 'SUCCESS');
      }
      const link = new URL((await v.api('/v1/generate-url-to-admin')).json.url).pathname;
      const opened = await fetch(`${t.url}${link}`, { redirect: 'manual' });
      const home = new URL(opened.headers.get('location')!, `${t.url}${link}`).pathname;
      const detail = await (await fetch(`${t.url}${home}/tx/${id}`)).text();
      const form = /<form method="post">(?:(?!<\/form>).)*name="action" value="refund"(?:(?!<\/form>).)*<\/form>/s.exec(
        detail,
      )![0];
      const fields = hiddenFields(form);

      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          fetch(`${t.url}${home}/tx/${id}`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(fields),
          }),
        ),
      );
      assert.equal(
        answers.filter((a) => a.status === 303).length,
        1,
        'one submit refunded; the others were told the page is out of date',
      );
      const entries = (await v.api(`/v1/transaction/${id}`)).json.entries as { type: string; amountTotal: string }[];
      const refunds = entries.filter((e) => e.type === 'ONETIME_PAYMENT_REFUND');
      assert.equal(refunds.length, 1);
      assert.equal(refunds[0]!.amountTotal, '-20.00', 'the latest payment');
    });
  });
}
