import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway, FORM_CARD_ENTRY } from '../../src/gateways/sandbox-gateway.ts';
import { storeKinds, TEST_CARD, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A purchase form's key: the same form again is the same payment, another vendor's form key is
 * never this vendor's payment, and a charge the gateway never received may be paid again.
 */
for (const kind of await storeKinds()) {
  describe(`purchase form keys (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    // The sandbox network, except that a charge can be lost on the way to it (it never arrives).
    let network: PaymentGateway;
    let loseNextCharge = false;
    // With `meet` set, that many card tokenizations wait for each other: each request has then passed
    // its checks before the form's attempt is recorded, as two requests at the same moment may.
    let meet: number | undefined;
    const arrived: (() => void)[] = [];
    const gateway: PaymentGateway = {
      provider: 'SANDBOX',
      ...FORM_CARD_ENTRY,
      tokenize: async (card, at) => {
        if (meet !== undefined) {
          await new Promise<void>((go) => {
            arrived.push(go);
            if (arrived.length === meet) {
              meet = undefined;
              for (const release of arrived.splice(0)) release();
            }
          });
        }
        return network.tokenize(card, at);
      },
      charge: (request) => {
        if (!loseNextCharge) return network.charge(request);
        loseNextCharge = false;
        return Promise.reject(new Error('connection reset before the request was sent'));
      },
      refund: (request) => network.refund(request),
      lookupCharge: (id) => network.lookupCharge(id),
      lookupRefund: (id) => network.lookupRefund(id),
    };
    useTestApp(kind, { gateways: { sandbox: gateway }, payments: { reconcileGraceMs: 0 } }, (app, vendor) => {
      t = app;
      v = vendor;
      network = sandboxGateway(app.services.database.kysely);
    });

    const request = (productId: string, attemptKey: string) => ({
      productId,
      email: 'form@example.com',
      country: 'US',
      card: TEST_CARD,
      attemptKey,
    });

    test("another vendor's form key is refused, never answered with that vendor's payment", async () => {
      const product = await v.product({ type: 'ONETIME' });
      const paid = await t.services.purchases.purchase(v.scope(), request(product.id, 'checkout:shared-token'));
      assert.equal(paid.status, 'PAID');
      const other = await t.newVendor('Other Vendor');
      const otherProduct = await other.product({ type: 'ONETIME' });
      await assert.rejects(
        t.services.purchases.purchase(other.scope(), request(otherProduct.id, 'checkout:shared-token')),
        { code: 'IDEMPOTENCY_CONFLICT' },
      );
    });

    test("one form key sent to two vendors' forms at the same moment: one pays, the other is refused and never shown that payment", async () => {
      const product = await v.product({ type: 'ONETIME' });
      const other = await t.newVendor('Racing Vendor');
      const otherProduct = await other.product({ type: 'ONETIME' });
      meet = 2;
      const results = await Promise.allSettled([
        t.services.purchases.purchase(v.scope(), request(product.id, 'checkout:raced-token')),
        t.services.purchases.purchase(other.scope(), request(otherProduct.id, 'checkout:raced-token')),
      ]);
      assert.equal(meet, undefined, 'both passed their checks before either recorded');
      const paid = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code?: string }] : []));
      assert.deepEqual(
        paid.map((p) => p.status),
        ['PAID'],
      );
      assert.deepEqual(
        refused.map((e) => e.code),
        ['IDEMPOTENCY_CONFLICT'],
      );
    });

    test('a form whose charge never reached the gateway is voided by the reconciler, and the same form then pays once', async () => {
      const product = await v.product({ type: 'ONETIME' });
      loseNextCharge = true;
      const first = await t.services.purchases.purchase(v.scope(), request(product.id, 'checkout:lost-token'));
      assert.equal(first.status, 'PENDING');
      const report = await t.services.reconciler.run();
      assert.ok(report.voided >= 1);
      const again = await t.services.purchases.purchase(v.scope(), request(product.id, 'checkout:lost-token'));
      assert.equal(again.status, 'PAID');
      const third = await t.services.purchases.purchase(v.scope(), request(product.id, 'checkout:lost-token'));
      assert.equal(third.status, 'PAID');
      assert.equal(
        third.status === 'PAID' && again.status === 'PAID' && third.transaction.id,
        again.status === 'PAID' && again.transaction.id,
      );
    });
  });
}
