import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { pendingAttempt } from '../../src/domain/payments/charge-attempts.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * What the vendor does while a renewal's charge is in flight wins for the status (docs/decisions.md,
 * the billing worker): a cancel or a refund made between the worker's plan and its write is kept,
 * while the money that did move is still booked. Customers are in the US without a ZIP code: no tax.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`renewals racing with the vendor (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-10T10:00:00.000Z'));
    /** Runs while the gateway holds a renewal charge, as a vendor's request arriving just then would. */
    const script: { during?: () => Promise<void>; decline: boolean; charges: number } = { decline: false, charges: 0 };
    let t: TestApp;
    let v: TestVendor;
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      script.charges++;
      const during = script.during;
      script.during = undefined;
      await during?.();
      if (script.decline)
        return { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false };
      return real.charge(request);
    });
    const scripted = network.gateway;

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: scripted } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      clock.set(new Date('2030-01-10T10:00:00.000Z'));
      Object.assign(script, { during: undefined, decline: false, charges: 0 });
      v = await t.newVendor();
    });

    const monthly = (usd = 20) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: usd }],
      } as never);
    /** Runs the worker; `script.charges` then counts the renewal charges only. */
    const run = () => {
      script.charges = 0;
      return t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    };
    const read = (id: string) => t.services.transactions.get(v.scope(), id);
    const payments = async (id: string) => (await read(id)).entries.filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');

    test('cancelled while its renewal is charged: the payment is booked and the subscription stays cancelled at period end', async () => {
      const id = await v.buy((await monthly()).id);
      script.during = async () => void (await t.services.transactions.cancel(v.scope(), id, 'VENDOR'));
      clock.advance(32 * DAY);
      await run();
      assert.equal(script.charges, 1);
      assert.equal((await payments(id)).length, 2);
      assert.equal((await read(id)).transaction.status, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
    });

    test('a decline answered after the subscription was cancelled meanwhile is no dunning try: it simply ends at period end', async () => {
      const id = await v.buy((await monthly()).id);
      script.decline = true;
      script.during = async () => void (await t.services.transactions.cancel(v.scope(), id, 'VENDOR'));
      clock.advance(32 * DAY);
      await run();
      const after = (await read(id)).transaction;
      assert.equal(after.status, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(after.whoCanceled, 'VENDOR');
      assert.equal(after.nextCharge, null);
      assert.equal((await payments(id)).length, 1);
    });

    test('refunded while the worker ends it at period end: it stays REFUNDED, not CANCELLED', async () => {
      const ending = await v.buy((await monthly()).id);
      await t.services.transactions.cancel(v.scope(), ending, 'VENDOR');
      clock.advance(DAY);
      // Due in the same batch: its charge is the moment the vendor's refund of the other arrives.
      const renewing = await v.buy((await monthly()).id);
      script.during = async () => void (await t.services.refunds.refund(v.scope(), ending));
      clock.advance(32 * DAY);
      await run();
      assert.equal(script.charges, 1);
      assert.equal((await read(renewing)).transaction.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal((await read(ending)).transaction.status, 'TRANSACTION_STATUS_REFUNDED');
    });

    test('a free subscription renews without asking the gateway and books no payment of nothing', async () => {
      const id = await v.buy((await monthly(0)).id);
      clock.advance(32 * DAY);
      await run();
      assert.equal(script.charges, 0);
      assert.equal((await payments(id)).length, 0);
      assert.notEqual((await read(id)).transaction.nextCharge, null);
    });

    test('a renewal attempt a killed worker recorded at another price is held, not charged', async () => {
      const id = await v.buy((await monthly()).id);
      // What a worker killed after recording its attempts leaves: a PENDING attempt, here of 1 cent.
      const stale = [0, 1, 2].map((period) =>
        pendingAttempt({
          scope: v.scope(),
          kind: 'RENEWAL',
          key: `renewal:${id}:${period}:0`,
          transactionId: id,
          amountMinor: 1,
          currency: 'USD',
          now: clock.now(),
          plan: null,
        }),
      );
      await t.services.store.transaction((repos) => repos.billing.recordAttempts(stale));
      clock.advance(32 * DAY);
      const report = await run();
      assert.equal(script.charges, 0);
      assert.equal(report.errors.length, 1);
      assert.match(report.errors[0]!, /price changed/);
      assert.equal((await payments(id)).length, 1);
    });
  });
}
