import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import type { Environment } from '../../src/domain/model.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The dunning schedule starts over in every period (docs/decisions.md, transaction lifecycle: 1, 3,
 * 5 and 7 days after the due date), and a vendor's sandbox clock moves the sandbox only: production
 * time, money and feed stay where they were. Customers are in the US without a ZIP code: no tax.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`dunning per period and the sandbox clock's reach (${kind})`, () => {
    const clock = fixedClock(new Date('2030-01-10T08:00:00.000Z'));
    /** Declines the next `decline` sandbox charges, then lets the sandbox answer. */
    const script = { decline: 0 };
    let t: TestApp;
    let v: TestVendor;
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      if (script.decline > 0) {
        script.decline--;
        return { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false };
      }
      return real.charge(request);
    });
    const scripted = network.gateway;

    before(async () => {
      t = await startTestApp(kind, { clock, gateways: { sandbox: scripted } });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(() => t.close());
    beforeEach(async () => {
      script.decline = 0;
      v = await t.newVendor();
    });

    const at = (iso: string) => clock.set(new Date(iso));
    const run = () => t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    const monthly = (environment: Environment = 'sandbox') =>
      v.product(
        { type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 20 }] },
        environment,
      );
    const listed = async (id: string, environment: Environment = 'sandbox') => {
      const res = await v.api('/v1/transactions/customer%40example.com', { environment });
      assert.equal(res.status, 200, res.text);
      return (res.json as any[]).find((tx) => tx.id === id);
    };
    const payments = async (id: string, environment: Environment = 'sandbox') => {
      const res = await v.api(`/v1/transaction/${id}`, { environment });
      assert.equal(res.status, 200, res.text);
      return (res.json.entries as Array<{ type: string; amountTotal: string }>).filter(
        (e) => e.type === 'SUBSCRIPTION_PAYMENT',
      );
    };
    const feed = async (environment: Environment) => {
      const res = await v.api('/v1/changed-transactions', { environment });
      assert.equal(res.status, 200, res.text);
      return res.json as Array<{ id: string; changeStatus: string }>;
    };
    const drainFeed = async (environment: Environment) => {
      for (const e of await feed(environment))
        await v.api(`/v1/changed-transactions/${e.id}`, { method: 'POST', environment });
      assert.deepEqual(await feed(environment), []);
    };

    test("a retry that succeeds resets the tries: the next period's first decline is retried 1 day after its due date, and the full schedule follows", async () => {
      at('2030-01-10T08:00:00.000Z');
      const id = await v.buy((await monthly()).id);

      // February: declined on the due date, paid on the first retry a day later.
      script.decline = 1;
      at('2030-02-10T08:00:00.000Z');
      assert.equal((await run()).declined, 1);
      assert.equal((await listed(id)).nextCharge, '2030-02-11T08:00:00.000Z');
      at('2030-02-11T08:00:00.000Z');
      assert.equal((await run()).renewed, 1);
      let tx = await listed(id);
      assert.equal(tx.lastCharge, '2030-02-11T08:00:00.000Z');
      assert.equal(tx.nextCharge, '2030-03-10T08:00:00.000Z');

      // March: every try declines. Had February's try count carried over, the first retry would be
      // on day 3 (13 March) and the subscription would be cancelled a try early.
      script.decline = 100;
      const due = Date.parse('2030-03-10T08:00:00.000Z');
      const retries: string[] = [];
      for (const day of [0, 1, 3, 5]) {
        clock.set(new Date(due + day * DAY));
        const report = await run();
        assert.equal(report.declined, 1, `try on day ${day}`);
        tx = await listed(id);
        assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE', `still active after the try on day ${day}`);
        retries.push(tx.nextCharge);
      }
      assert.deepEqual(retries, [
        '2030-03-11T08:00:00.000Z',
        '2030-03-13T08:00:00.000Z',
        '2030-03-15T08:00:00.000Z',
        '2030-03-17T08:00:00.000Z',
      ]);
      clock.set(new Date(due + 7 * DAY));
      const last = await run();
      assert.deepEqual([last.declined, last.failed], [1, 1]);
      tx = await listed(id);
      assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(tx.whoCanceled, 'NEXT_CHARGE_FAILED');
      assert.deepEqual(
        (await payments(id)).map((e) => e.amountTotal),
        ['20.00', '20.00'],
        'the first payment and the February renewal',
      );
    });

    test("moving a vendor's sandbox clock 40 days renews its sandbox subscription and leaves its production subscription untouched", async () => {
      at('2030-05-01T00:00:00.000Z');
      const sandboxId = await v.buy((await monthly()).id);
      const productionId = await v.buy((await monthly('production')).id, {}, 'production');
      await drainFeed('sandbox');
      await drainFeed('production');
      const productionBefore = await v.api(`/v1/transaction/${productionId}`, { environment: 'production' });
      const listedBefore = await listed(productionId, 'production');
      assert.equal(listedBefore.nextCharge, '2030-06-01T00:00:00.000Z');
      assert.equal((await listed(sandboxId)).nextCharge, '2030-06-01T00:00:00.000Z');

      const moved = await v.api('/v1/clock/advance', { body: { seconds: 40 * 86400 } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.json.now, '2030-06-10T00:00:00.000Z');
      // Whether the move bills in the request or the worker does it later, this is all the worker would run.
      await t.services.billing.runDue();
      await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });

      // The sandbox lived the 40 days: renewed once, at its scheduled moment.
      assert.equal((await payments(sandboxId)).length, 2);
      const sandboxTx = await listed(sandboxId);
      assert.equal(sandboxTx.lastCharge, '2030-06-01T00:00:00.000Z');
      assert.equal(sandboxTx.nextCharge, '2030-07-01T00:00:00.000Z');
      assert.deepEqual(
        (await feed('sandbox')).map((e) => [e.id, e.changeStatus]),
        [[sandboxId, 'CHANGED_STATUS_RENEWED']],
      );

      // Production did not: the same one payment, status and dates, and nothing new in its feed.
      assert.deepEqual(
        (await payments(productionId, 'production')).map((e) => e.amountTotal),
        ['20.00'],
      );
      const listedAfter = await listed(productionId, 'production');
      assert.equal(listedAfter.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(listedAfter.nextCharge, listedBefore.nextCharge);
      assert.equal(listedAfter.lastCharge, listedBefore.lastCharge);
      assert.deepEqual(listedAfter, listedBefore);
      assert.deepEqual(
        (await v.api(`/v1/transaction/${productionId}`, { environment: 'production' })).json,
        productionBefore.json,
      );
      assert.deepEqual(await feed('production'), []);
      // Production's time did not move either: a purchase there now is dated now, not 40 days on.
      const later = await v.buy((await monthly('production')).id, { email: 'later@example.com' }, 'production');
      const laterTx = (await v.api('/v1/transactions/later%40example.com', { environment: 'production' })).json[0];
      assert.equal(laterTx.id, later);
      assert.equal(laterTx.createDate, '2030-05-01T00:00:00.000Z');
      assert.equal(laterTx.nextCharge, '2030-06-01T00:00:00.000Z');
      const productionClock = await v.api('/v1/clock', { environment: 'production' });
      assert.equal(productionClock.status, 404, 'production has no movable clock');
    });
  });
}
