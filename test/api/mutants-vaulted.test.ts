import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

for (const kind of await storeKinds()) {
  describe(`charge-vaulted of nothing (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, {}, (app, vendor) => ((t = app), (v = vendor)));

    test('a charge of zero is refused with 400, nothing is recorded and the ledger has no payment of nothing', async () => {
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      const res = await v.api(`/v1/charge-vaulted/${id}`, {
        body: { prices: [{ currency: 'USD', value: 0 }] },
        headers: { 'idempotency-key': 'zero-charge' },
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error, 'INVALID_INPUT');
      const { entries } = await t.services.transactions.get(v.scope(), id);
      assert.equal(entries.filter((e) => e.type === 'VAULTED_PAYMENT').length, 0);
    });
  });
}
