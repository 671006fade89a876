import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { AppError } from '../../src/domain/errors.ts';
import type { Environment } from '../../src/domain/model.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The operator suspends a vendor (issue 34, docs/decisions.md §24), on both stores: its checkout
 * refuses new purchases in both environments (the page, tc.buy, a purchase, a charge of a stored
 * card), while reads, refunds and cancellations go on; its renewals go on unless the operator stopped
 * them, and stopped ones are neither charged nor cancelled (a cancelled period still ends); resumed,
 * each renewal that fell due meanwhile is charged once, for the period of now. Each step is safe to repeat.
 */
const page = (t: TestApp, id: string, environment: Environment) =>
  fetch(`${t.url}${environment === 'sandbox' ? '/sandbox' : ''}/payment/product/${id}`);
const tcBuy = (t: TestApp, productId: string, environment: Environment) =>
  fetch(`${t.url}${environment === 'sandbox' ? '/sandbox' : ''}/public/v1/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ productId }),
  });
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('the purchase went through'),
    (err: unknown) => err,
  );

for (const kind of await storeKinds()) {
  describe(`a suspended vendor (${kind})`, () => {
    test("its checkout refuses new purchases in both environments; its customers' reads, refunds and cancellations go on", async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor('Acme');
        const other = await t.newVendor('Other');
        const products = {
          production: await v.product({ type: 'ONETIME' }, 'production'),
          sandbox: await v.product({ type: 'ONETIME' }),
        };
        const paid = await v.buy(products.production.id, { email: 'a@example.com' }, 'production');
        const sub = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' }, 'production');
        const subscription = await v.buy(sub.id, { email: 'a@example.com' }, 'production');
        const vaultedProduct = await v.product(
          { type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] },
          'production',
        );
        const vaulted = await v.buy(vaultedProduct.id, { email: 'a@example.com' }, 'production');

        const suspended = await t.services.catalog.suspendVendor(v.vendor.id, { reason: 'chargebacks under review' });
        assert.equal(suspended.changed, true);
        for (const environment of ['production', 'sandbox'] as const) {
          const res = await page(t, products[environment].id, environment);
          assert.equal(res.status, 403, environment);
          assert.match(await res.text(), /<h1>This seller is not taking purchases<\/h1>[^]*Nothing has been charged/);
          const started = await tcBuy(t, products[environment].id, environment);
          assert.equal(started.status, 403);
          assert.equal(((await started.json()) as { error: string }).error, 'FORBIDDEN');
          const err = await rejection(v.buy(products[environment].id, { email: 'b@example.com' }, environment));
          assert.ok(err instanceof AppError && err.code === 'FORBIDDEN' && /suspended/.test(err.message), String(err));
        }
        const charge = await v.api(`/v1/charge-vaulted/${vaulted}`, {
          body: { prices: [{ currency: 'USD', value: 5 }] },
          environment: 'production',
        });
        assert.equal(charge.status, 403, charge.text);
        assert.match(charge.json.message, /suspended/);
        const other1 = await other.product({ type: 'ONETIME' }, 'production');
        assert.equal((await page(t, other1.id, 'production')).status, 200, 'another vendor sells on');

        const listed = await v.api('/v1/transactions/a%40example.com', { environment: 'production' });
        assert.equal(listed.status, 200);
        assert.equal((listed.json as unknown[]).length, 3);
        const refund = await v.api(`/v1/refund-transaction/${paid}`, { method: 'POST', environment: 'production' });
        assert.equal(refund.status, 200, refund.text);
        const cancel = await v.api(`/v1/cancel-subscription/${subscription}`, {
          method: 'POST',
          environment: 'production',
        });
        assert.equal(cancel.status, 200, cancel.text);

        for (const reason of ['x'.repeat(501), 'bell\u0007']) {
          const refused = await t.services.catalog.suspendVendor(v.vendor.id, { reason }).catch((e: unknown) => e);
          assert.ok(refused instanceof AppError && refused.code === 'INVALID_INPUT', String(refused));
        }
        const again = await t.services.catalog.suspendVendor(v.vendor.id, { reason: 'chargebacks under review' });
        assert.equal(again.changed, false, 'the same suspension again changes nothing');
        assert.equal(again.vendor.suspension?.since, suspended.vendor.suspension?.since);
        const [status] = (await t.services.catalog.vendorStatuses()).filter((s) => s.vendor.id === v.vendor.id);
        assert.deepEqual(status?.suspension, {
          since: suspended.vendor.suspension!.since,
          reason: 'chargebacks under review',
          renewalsStopped: false,
        });

        assert.equal((await t.services.catalog.resumeVendor(v.vendor.id)).changed, true);
        assert.equal((await t.services.catalog.resumeVendor(v.vendor.id)).changed, false);
        assert.equal((await page(t, products.production.id, 'production')).status, 200);
        await v.buy(products.sandbox.id, { email: 'b@example.com' });
      } finally {
        await t.close();
      }
    });

    test('renewals go on unless stopped; stopped ones are neither charged nor cancelled; resumed, each is charged once for the period of now', async () => {
      const clock = fixedClock(new Date('2030-01-15T10:00:00.000Z'));
      const t = await startTestApp(kind, { clock });
      try {
        const v = await t.newVendor('Acme');
        const at = (iso: string) => clock.set(new Date(iso));
        const run = () => t.services.billing.runDue();
        const subscribe = async (frequency: string) => {
          const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: frequency }, 'production');
          return v.buy(product.id, { email: `${frequency.toLowerCase()}@example.com` }, 'production');
        };
        const state = async (id: string) => {
          const tr = await t.services.store.transactions.find(v.scope('production'), id);
          const entries = await t.services.store.entries.listForTransaction(id);
          return { status: tr?.status, nextCharge: tr?.nextCharge, payments: entries.map((e) => e.periodStart) };
        };
        const monthly = await subscribe('MONTHLY');
        const weekly = await subscribe('WEEKLY');
        await v.api(`/v1/cancel-subscription/${weekly}`, { method: 'POST', environment: 'production' });

        await t.services.catalog.suspendVendor(v.vendor.id, { stopRenewals: true });
        at('2030-01-23T10:00:00.000Z');
        await run();
        assert.equal((await state(weekly)).status, 'SUBSCRIPTION_STATUS_CANCELLED', 'a cancelled period still ends');

        // Suspended, renewals going on again: charged as always.
        await t.services.catalog.suspendVendor(v.vendor.id, { stopRenewals: false });
        at('2030-02-15T11:00:00.000Z');
        await run();
        assert.deepEqual((await state(monthly)).payments.length, 2);

        await t.services.catalog.suspendVendor(v.vendor.id, { stopRenewals: true });
        at('2030-04-20T10:00:00.000Z'); // 15 March and 15 April fell due
        await run();
        await run();
        assert.deepEqual(await state(monthly), {
          status: 'SUBSCRIPTION_STATUS_ACTIVE',
          nextCharge: '2030-03-15T10:00:00.000Z',
          payments: ['2030-01-15T10:00:00.000Z', '2030-02-15T10:00:00.000Z'],
        });

        const resumed = await t.services.catalog.resumeVendor(v.vendor.id);
        assert.equal(resumed.changed, true);
        await run();
        await run();
        const after = await state(monthly);
        assert.deepEqual(after, {
          status: 'SUBSCRIPTION_STATUS_ACTIVE',
          nextCharge: '2030-05-15T10:00:00.000Z',
          payments: ['2030-01-15T10:00:00.000Z', '2030-02-15T10:00:00.000Z', '2030-04-15T10:00:00.000Z'],
        });
      } finally {
        await t.close();
      }
    });
  });
}
