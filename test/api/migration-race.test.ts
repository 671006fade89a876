import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { storeKinds, TEST_CARD, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A plan switch (transactionIdToMigrate) priced against the old subscription's period, while that
 * subscription renews: the switch is checked again where it is booked, in the same database
 * transaction, and refused when the old subscription's next charge moved since it was priced. Else the
 * customer's credit would be worked out from a period already paid for again, and the renewal just
 * charged would be lost in the switch.
 */
for (const kind of await storeKinds()) {
  describe(`a plan switch while the old subscription renews (${kind})`, () => {
    const clock = fixedClock(new Date('2030-04-01T00:00:00.000Z'));
    const scripted = scriptedSandbox((request, real) => real.charge(request));
    let beforeTokenize: (() => Promise<void>) | undefined;
    const gateway: PaymentGateway = {
      ...scripted.gateway,
      // The card is tokenized after the switch was priced and before it is booked: the renewal lands there.
      tokenize: async (card, now) => {
        const hook = beforeTokenize;
        beforeTokenize = undefined;
        await hook?.();
        return scripted.gateway.tokenize(card, now);
      },
    };
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, gateways: { sandbox: gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      scripted.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
    });

    const monthly = (usd: number) =>
      v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: usd }] });
    const entriesOf = async (id: string) =>
      ((await v.api(`/v1/transaction/${id}`)).json.entries as { type: string; amountTotal: string }[]).map(
        (e) => `${e.type} ${e.amountTotal}`,
      );

    test('renewed between pricing and booking: the switch is refused, the renewal stands, nothing else is written', async () => {
      const oldId = await v.buy((await monthly(30)).id, { email: 'racer@example.com', country: 'US' });
      const link = await v.api(`/v1/customize-product/${(await monthly(60)).id}`, {
        body: { prices: [{ currency: 'USD', value: 60 }], transactionIdToMigrate: oldId },
      });
      assert.equal(link.status, 200, link.text);

      // 1 May: the old subscription is due. The customer switches as the worker renews it.
      clock.set(new Date('2030-05-01T00:00:00.000Z'));
      beforeTokenize = async () => {
        assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed, 1);
      };
      await assert.rejects(
        t.services.purchases.purchase(v.scope(), {
          productId: link.json.customizedProductId as string,
          email: 'racer@example.com',
          country: 'US',
          card: TEST_CARD,
        }),
        (err: Error & { code?: string }) => err.code === 'INVALID_STATE' && /changed/.test(err.message),
      );
      assert.equal(beforeTokenize, undefined, 'the renewal ran inside the purchase');

      const listed = (await v.api('/v1/transactions/racer%40example.com')).json as {
        id: string;
        transactionStatus: string;
        nextCharge: string;
      }[];
      assert.deepEqual(
        listed.map((tx) => [tx.id, tx.transactionStatus, tx.nextCharge]),
        [[oldId, 'SUBSCRIPTION_STATUS_ACTIVE', '2030-06-01T00:00:00.000Z']],
        'the old subscription renewed and stays; no new subscription',
      );
      assert.deepEqual(await entriesOf(oldId), ['SUBSCRIPTION_PAYMENT 30.00', 'SUBSCRIPTION_PAYMENT 30.00']);

      // A new switch, priced against the renewed period, goes through.
      const again = await t.services.purchases.purchase(v.scope(), {
        productId: link.json.customizedProductId as string,
        email: 'racer@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(again.status, 'PAID', JSON.stringify(again));
      // The renewed period, 1 May to 1 June (31 days) of $30, buys 15.5 days at $60 for 31 days.
      assert.equal(
        (again as { transaction: { nextCharge: string } }).transaction.nextCharge,
        '2030-05-16T12:00:00.000Z',
      );
    });
  });
}
