import assert from 'node:assert/strict';
import { Migrator, sql } from 'kysely';
import { beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { convertFromUsd } from '../../src/domain/tax/pricing.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The overview's churn and MRR on both stores. Churn counts a subscription by the date it stopped
 * renewing (cancelled, ended by failed renewals, refunded), whatever changed on it later; a plan
 * switch is not churn. MRR is what the next renewals charge: the offer's price now, without the
 * first payment's coupon, in the currency the renewal is charged in.
 */
const LATER_DECLINED = { number: '4000000000000341', expMonth: 12, expYear: 2035 };

for (const kind of await storeKinds()) {
  describe(`panel figures: churn and MRR (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-01T10:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app) => (t = app));
    beforeEach(async () => {
      clock.set(new Date('2030-05-01T10:00:00.000Z'));
      v = await t.newVendor();
    });

    const at = (iso: string) => clock.set(new Date(iso));
    const run = () => t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
    const monthly = (usd: number, extra: Record<string, unknown> = {}) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: usd }],
        ...extra,
      } as never);
    const cancelledAt = async (id: string) =>
      (
        await t.services.database.kysely
          .selectFrom('transactions')
          .select('cancelled_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).cancelled_at;
    const overview = () => t.services.dashboard.overview(v.scope(), 'day');

    test('churn counts a subscription in the 30 days it was cancelled in, not when it later ended, was refunded or changed', async () => {
      const plan = await monthly(10);
      const trialPlan = await monthly(10, { trialDays: 14 });
      const early = await v.buy(plan.id, { email: 'early@example.com' });
      const stays = await v.buy(plan.id, { email: 'stays@example.com' });
      const failing = await v.buy(plan.id, { email: 'failing@example.com', card: LATER_DECLINED });

      // Cancelled on 10 May to the end of its period; the period ends on 1 June (a CANCELLED change then).
      at('2030-05-10T12:00:00.000Z');
      assert.equal(
        (await t.services.transactions.cancel(v.scope(), early, 'VENDOR')).transaction.status,
        'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
      );
      assert.equal(await cancelledAt(early), '2030-05-10T12:00:00.000Z');
      assert.equal(await cancelledAt(stays), null);

      // 1 June: `early` ends, `stays` renews, `failing` is declined; its retries fail on 2, 4, 6 and 8 June.
      for (const day of ['2030-06-01', '2030-06-02', '2030-06-04', '2030-06-06', '2030-06-08']) {
        at(`${day}T10:00:00.000Z`);
        await run();
      }
      const [earlyNow] = (await v.api(`/v1/transactions/early%40example.com`)).json as { transactionStatus: string }[];
      assert.equal(earlyNow!.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(
        await cancelledAt(early),
        '2030-05-10T12:00:00.000Z',
        'the end of the paid period does not move the cancellation date',
      );
      assert.equal(await cancelledAt(failing), '2030-06-08T10:00:00.000Z', 'the last failed retry is the cancellation');

      // 10 June: one cancelled and then refunded (counted once, on its cancellation), one refunded outright, a trial cancelled.
      at('2030-06-10T10:00:00.000Z');
      const refundedLater = await v.buy(plan.id, { email: 'later@example.com' });
      await t.services.transactions.cancel(v.scope(), refundedLater, 'CUSTOMER');
      at('2030-06-11T10:00:00.000Z');
      assert.equal((await t.services.refunds.refund(v.scope(), refundedLater)).status, 'REFUNDED');
      assert.equal(await cancelledAt(refundedLater), '2030-06-10T10:00:00.000Z');
      const refunded = await v.buy(plan.id, { email: 'refunded@example.com' });
      await t.services.refunds.refund(v.scope(), refunded);
      assert.equal(await cancelledAt(refunded), '2030-06-11T10:00:00.000Z', 'a refund ends a subscription');
      const trial = await v.buy(trialPlan.id, { email: 'trial@example.com' });
      await t.services.transactions.cancel(v.scope(), trial, 'CUSTOMER');
      const oneTime = await v.buy((await v.product({ type: 'ONETIME' })).id, { email: 'once@example.com' });
      await t.services.refunds.refund(v.scope(), oneTime);
      assert.equal(await cancelledAt(oneTime), null, 'only subscriptions are cancelled');

      // 15 June: the window starts on 16 May. `early` was cancelled before it (changed on 1 June, which the old count used).
      at('2030-06-15T10:00:00.000Z');
      let o = await overview();
      assert.equal(o.churned30, 4, 'failing, refundedLater, refunded, trial');
      assert.equal(o.activeSubscriptions, 1);
      assert.equal(o.churnRate, 4 / 5);

      // A change of another kind on a cancelled subscription moves nothing either.
      await t.services.transactions.assignEmail(v.scope(), early, 'new-owner@example.com');
      assert.equal(await cancelledAt(early), '2030-05-10T12:00:00.000Z');
      at('2030-07-09T10:00:00.000Z');
      o = await overview();
      assert.equal(o.churned30, 3, 'on 9 July the window starts on 9 June: failing (8 June) has left it');
    });

    test('a subscription replaced by a plan switch is not churn; its successor is active', async () => {
      const old = await v.buy((await monthly(30)).id, { email: 'switch@example.com' });
      at('2030-05-11T10:00:00.000Z');
      const upgrade = await v.api(`/v1/customize-product/${(await monthly(60)).id}`, {
        body: { prices: [{ currency: 'USD', value: 60 }], transactionIdToMigrate: old },
      });
      assert.equal(upgrade.status, 200, upgrade.text);
      await v.buy((upgrade.json as { customizedProductId: string }).customizedProductId, {
        email: 'switch@example.com',
      });
      assert.equal(await cancelledAt(old), '2030-05-11T10:00:00.000Z', 'the old subscription did stop');
      const o = await overview();
      assert.deepEqual([o.churned30, o.activeSubscriptions], [0, 1]);
    });

    test('MRR is what the next renewals charge: the price now, without the coupon of the first payment, in the renewal currency', async () => {
      const plan = await monthly(10, {
        prices: [
          { currency: 'USD', value: 10 },
          { currency: 'EUR', value: 9 },
        ],
      });
      const yearly = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'YEARLY',
        prices: [{ currency: 'USD', value: 120 }],
      } as never);
      await t.services.coupons.create(v.scope(), { productId: plan.id, code: 'HALF', percentOff: 50 });
      const usd = await v.buy(plan.id, { email: 'usd@example.com', coupon: 'HALF' });
      await v.buy(plan.id, { email: 'eur@example.com', country: 'DE', currency: 'EUR' });
      await v.buy(yearly.id, { email: 'yearly@example.com' });
      const [paid] = (await v.api(`/v1/transactions/usd%40example.com`)).json as { netPrice: number }[];
      assert.equal(paid!.netPrice, 5, 'the first payment had the coupon');

      let o = await overview();
      assert.deepEqual(
        o.mrr.byCurrency,
        { USD: 1000 + 1000, EUR: 900 },
        'USD: the monthly at its full price and the yearly per month',
      );

      // The vendor raises the price and drops the EUR price: renewals charge 12 USD, and EUR converted from it.
      await t.services.catalog.updateProduct(v.scope(), plan.id, {
        name: plan.name,
        prices: [{ currency: 'USD', value: 12 }],
      });
      o = await overview();
      const eur = convertFromUsd(1200, 'EUR', t.services.rates);
      assert.deepEqual(o.mrr.byCurrency, { USD: 1200 + 1000, EUR: eur });
      const eurInUsd = o.mrr.usd - 2200;
      assert.ok(Math.abs(eurInUsd - 1200) <= 1, `EUR ${eur} is about 12 USD (${eurInUsd})`);

      // And that is what the renewal then charges.
      at('2030-06-01T10:00:00.000Z');
      await run();
      const entries = await t.services.store.entries.listForTransaction(usd);
      assert.deepEqual(
        entries.map((e) => e.netMinor),
        [500, 1200],
      );
    });

    test('the migration dates subscriptions stopped before it by their latest change', async () => {
      const plan = await monthly(10);
      const cancelled = await v.buy(plan.id, { email: 'before@example.com' });
      const live = await v.buy(plan.id, { email: 'live@example.com' });
      at('2030-05-03T10:00:00.000Z');
      await t.services.transactions.cancel(v.scope(), cancelled, 'VENDOR');
      const db = t.services.database.kysely;
      const migrator = new Migrator({ db, provider: migrationProvider });
      try {
        // Back to the migration before 0016 (whatever its number), then up again.
        const names = Object.keys(await migrationProvider.getMigrations()).sort();
        const down = await migrator.migrateTo(names[names.indexOf('0016-cancelled-at') - 1]!);
        assert.equal(down.error, undefined);
        const columns = await sql<{
          n: number;
        }>`select count(*) as n from transactions where changed_at = '2030-05-03T10:00:00.000Z'`.execute(db);
        assert.equal(Number(columns.rows[0]!.n), 1);
      } finally {
        const up = await migrator.migrateToLatest();
        assert.equal(up.error, undefined);
      }
      assert.equal(await cancelledAt(cancelled), '2030-05-03T10:00:00.000Z');
      assert.equal(await cancelledAt(live), null);
      assert.equal((await overview()).churned30, 1);
    });
  });
}
