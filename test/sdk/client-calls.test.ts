import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  OpenTill,
  OpenTillError,
} from '../../packages/client/src/index.ts';
import { TEST_CARD, storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sdkFor } from './sdk-world.ts';

/**
 * Every v1 call of the SDK (packages/client) against a running opentill: what it sends reaches the
 * route, and what comes back is the one typed shape with the answer kept as `raw`.
 */
for (const kind of await storeKinds()) {
  describe(`the SDK's calls against opentill (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let sdk: OpenTill;
    useTestApp(kind, {}, (app, vendor) => {
      t = app;
      v = vendor;
      sdk = sdkFor(t, v);
    });

    test('lists a customer, reads a transaction with its entries, assigns an e-mail and replaces the payload', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Editor' });
      const id = await v.buy(product.id, { email: 'dana@example.com' });
      const [listed, ...others] = await sdk.listTransactionsByEmail('dana@example.com');
      assert.equal(others.length, 0);
      assert.equal(listed!.id, id);
      assert.equal(listed!.productName, 'Editor');
      assert.equal(listed!.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(listed!.assignedEmail, null);
      assert.equal(listed!.netPriceS, '20.00');
      assert.equal((listed!.raw as { id: string }).id, id);

      const read = await sdk.readTransaction(id);
      assert.deepEqual(
        read.entries.map((e) => `${e.type} ${e.amountTotal}`),
        [`ONETIME_PAYMENT ${read.entries[0]!.amountTotal}`],
      );
      assert.equal(read.entries[0]!.type, 'ONETIME_PAYMENT');
      assert.equal(read.raw.entries.length, 1);

      const assigned = await sdk.assignEmail(id, 'dana@signup.example');
      assert.equal(
        assigned.assignedEmail,
        'dana@signup.example',
        'the update answer says assignEmail; the SDK says assignedEmail',
      );
      assert.equal((assigned.raw as Record<string, unknown>).assignEmail, 'dana@signup.example');
      assert.equal('assignEmail' in assigned, false);
      assert.equal((await sdk.listTransactionsByEmail('dana@signup.example'))[0]!.id, id);

      const updated = await sdk.updatePayload(id, '{"plan":"pro"}');
      assert.equal(updated.payload, '{"plan":"pro"}');
      assert.equal((await sdk.updatePayload(id, null)).payload, null);
    });

    test('cancels a subscription, then refunds a payment in part and the rest', async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' });
      const id = await v.buy(product.id);
      const cancelled = await sdk.cancelSubscription(id);
      assert.equal(cancelled.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(cancelled.changed, true);
      assert.equal((await sdk.cancelSubscription(id)).changed, false, 'a second cancel changes nothing');

      const other = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
      const paid = await v.buy(other.id);
      const part = await sdk.refundTransaction(paid, { amount: 10, reason: 'goodwill' });
      assert.equal(part.status, 'REFUNDED');
      if (part.status !== 'REFUNDED') return;
      assert.equal(part.refunds[0]!.amountTotal, 10);
      assert.equal(part.refunds[0]!.refundable, true);
      assert.equal(part.refunds[0]!.platformFee, part.raw[0]!.TCFee, 'TCFee is the platformFee');
      assert.match(part.idempotencyKey, /^[0-9a-f-]{36}$/);
      const rest = await sdk.refundTransaction(paid);
      assert.equal(rest.status === 'REFUNDED' && rest.refunds[0]!.refundable, false);
      assert.equal((await sdk.readTransaction(paid)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
    });

    test("pauses and resumes a subscription and changes its seats (opentill's own calls)", async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' });
      const id = await v.buy(product.id);
      const paused = await sdk.pauseSubscription(id, { resumeAt: null });
      assert.deepEqual([paused.changed, paused.transactionStatus], [true, 'SUBSCRIPTION_STATUS_ACTIVE']);
      assert.equal(paused.pause?.startsAt, paused.raw.pause?.startsAt);
      assert.equal(paused.pause?.resumesAt, null);
      assert.equal((await sdk.pauseSubscription(id)).changed, false, 'a second pause changes nothing');
      const resumed = await sdk.resumeSubscription(id);
      assert.equal(resumed.changed, true);
      assert.equal(resumed.pause, null, 'resumed before it began: the pause is called off');

      const seats = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const team = await v.buy(seats.id, { quantity: 5 });
      const more = await sdk.updateQuantity(team, 8);
      assert.deepEqual([more.replaces, more.quantity, more.effective], [team, 8, 'NOW']);
      await assert.rejects(sdk.updateQuantity(more.id, 21), InvalidRequestError, "beyond the product's range");
    });

    test("makes, reads, lists and revokes a lasting coupon (opentill's own calls)", async () => {
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' });
      const made = await sdk.createCoupon({
        productId: product.id,
        code: 'sdk3',
        percentOff: 20,
        duration: 'repeating',
        durationPeriods: 3,
      });
      assert.deepEqual(
        [made.code, made.duration, made.durationPeriods, made.raw.code],
        ['SDK3', 'repeating', 3, 'SDK3'],
      );
      assert.equal((await sdk.readCoupon(made.id)).redemptions, 0);
      assert.ok((await sdk.listCoupons()).some((c) => c.id === made.id));
      const revoked = await sdk.revokeCoupon(made.id);
      assert.equal(typeof revoked.revokedAt, 'string');
      await assert.rejects(sdk.readCoupon('TC-CO_nope'), NotFoundError);
    });

    test('charges a vaulted customer, customizes a product, checks a licence and asks for the hosted URLs', async () => {
      const vault = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(vault.id);
      const charge = await sdk.chargeVaulted(id, {
        prices: [{ currency: 'USD', value: 9 }],
        chargeDescription: 'usage',
      });
      assert.equal(charge.status, 'SUCCESS');
      assert.equal(charge.netValueS, '9.00');
      assert.equal(charge.raw.status, 'SUCCESS');

      const product = await v.product({ type: 'ONETIME', issuesLicences: true });
      const custom = await sdk.customizeProduct(product.id, {
        prices: [{ currency: 'USD', value: 5 }],
        expiresIn: 3600,
      });
      assert.match(custom.customizedProductId, /\S/);
      assert.equal(custom.customizedProductId, custom.raw.customizedProductId);
      assert.match(custom.link, /^http/);

      const bought = await t.services.purchases.purchase(v.scope(), {
        productId: product.id,
        email: 'lic@example.com',
        country: 'US',
        card: TEST_CARD,
      });
      const licence = bought.status === 'PAID' ? bought.licence! : '';
      const status = await sdk.checkLicence(product.id, licence);
      assert.deepEqual(
        { status: status.status, transactionId: status.transactionId },
        { status: 'ACTIVE', transactionId: bought.status === 'PAID' ? bought.transaction.id : '' },
      );
      assert.equal(
        (await sdk.checkLicence(product.id, 'NOPE/../x?y')).status,
        'NOT_FOUND',
        'path segments are encoded',
      );

      assert.match((await sdk.generateManageTransactionsUrl('lic@example.com')).url, /^http/);
      assert.match((await sdk.generateAdminUrl()).url, /^http/);
    });

    test('reads and moves the sandbox clock', async () => {
      const before = await sdk.readSandboxClock();
      const moved = await sdk.advanceSandboxClock({ seconds: 86400 });
      assert.ok(Date.parse(moved.now) - Date.parse(before.now) >= 86400_000);
      assert.equal(moved.raw.offsetSeconds, moved.offsetSeconds);
    });

    test('refusals are typed errors carrying the request id; the production credential does not open the sandbox', async () => {
      const missing = await sdk.readTransaction('TC-TR_nope').catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError && missing instanceof OpenTillError);
      assert.equal(missing.status, 404);
      assert.equal(missing.code, 'NOT_FOUND');
      assert.match(missing.requestId ?? '', /\S{8,}/);
      assert.match(missing.message, new RegExp(missing.requestId!));

      const product = await v.product({ type: 'ONETIME' });
      const invalid = await sdk
        .customizeProduct(product.id, { prices: [{ currency: 'EUR', value: 5 }] })
        .catch((e: unknown) => e);
      assert.ok(invalid instanceof InvalidRequestError, String(invalid));
      assert.equal(invalid.code, 'USD_PRICE_REQUIRED');
      assert.equal(invalid.idempotencyKey?.length, 36, 'the POST carried a key of its own');

      const production = sdkFor(t, v, { environment: 'production' });
      assert.deepEqual(
        await production.listTransactionsByEmail('dana@example.com'),
        [],
        'production is {base_url}: its own data',
      );
      const wrong = new OpenTill({ baseUrl: `${t.url}/sandbox`, credential: v.credentials.production.authorization });
      const refused = await wrong.listTransactionsByEmail('a@example.com').catch((e: unknown) => e);
      assert.ok(refused instanceof AuthenticationError);
      assert.equal(refused.status, 401);
      assert.ok(refused.requestId);
    });
  });
}
