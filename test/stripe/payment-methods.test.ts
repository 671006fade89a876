import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { paymentMethodLabel, translator } from '../../src/i18n/index.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';

/**
 * More ways to pay through Stripe (docs/decisions.md §37), on both stores, against the stand-in that
 * checks every parameter as API 2026-10-28 does: a payment offers Stripe's dynamic payment methods,
 * a method kept for later only reusable ones; the method used is kept with its type and wallet and put
 * into the buyer's words; renewals charge exactly that type off-session; a mandate revoked or a dispute
 * decided by a wallet or bank ends the subscription by WALLET_PROVIDER.
 */
const SEPA = {
  type: 'sepa_debit',
  sepa_debit: { iban: 'DE89370400440532013000' },
  billing_details: { name: 'Erika Mustermann', email: 'erika@example.com' },
} as const;

for (const kind of await storeKinds()) {
  describe(`ways to pay through Stripe (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { clock, now: () => clock.now(), billing: { unknownRetryMs: 0 } });
    });
    after(() => w?.close());

    const product = (input: Parameters<StripeWorld['vendor']['product']>[0]) => w.vendor.product(input, 'production');
    const stored = (id: string) => w.app.services.store.transactions.find(w.vendor.scope('production'), id);
    const methodOf = async (id: string) =>
      w.app.services.store.paymentMethods.find((await stored(id))!.paymentMethodId!);
    const intentOf = (clientSecret: string) => w.stripe.paymentIntents.retrieve(clientSecret.split('_secret_')[0]!);
    /** Priced in dollars and euros: a buyer in Germany (`country: 'DE'`) pays in euros. */
    const prices = (value: number) => [
      { currency: 'USD', value },
      { currency: 'EUR', value },
    ];
    const monthly = (value: number) =>
      product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: prices(value) });
    const toNextCharge = async (id: string) => clock.set(new Date(Date.parse((await stored(id))!.nextCharge!) + 1000));

    test("a one-time payment offers Stripe's dynamic methods for its currency; a card in Apple Pay is kept with its wallet and named so", async () => {
      const p = await product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      const run = await w.checkout(p.id, { email: 'apple@example.com', card: 'pm_card_visa_applePay' });
      assert.equal(run.status, 200, run.html);
      const intent = await intentOf(run.session!.clientSecret);
      assert.deepEqual(intent.automatic_payment_methods, { allow_redirects: 'always', enabled: true });
      assert.equal(intent.allowed_payment_method_types, null);
      assert.equal(intent.setup_future_usage, null, 'nothing is kept of a one-time payment');
      // Every method the account offers in dollars, EPS too (it cannot be reused, and need not be); SEPA is euros only.
      assert.deepEqual([...intent.payment_method_types].sort(), ['card', 'link', 'paypal', 'us_bank_account']);
      const method = (await methodOf(run.transactionId!))!;
      assert.deepEqual(
        { type: method.type, wallet: method.wallet, brand: method.brand },
        {
          type: 'card',
          wallet: 'apple_pay',
          brand: 'visa',
        },
      );
      assert.equal(paymentMethodLabel(translator('en'), method), 'Visa ending in 4242 (Apple Pay)');
      assert.equal(paymentMethodLabel(translator('de'), method), 'Visa mit Endziffern 4242 über Apple Pay');
    });

    test('a one-time payment in euros offers EPS and SEPA; Link is kept as Link', async () => {
      const p = await product({ type: 'ONETIME', prices: prices(20) });
      const run = await w.checkout(p.id, { email: 'link@example.com', card: 'pm_link', country: 'DE' });
      assert.equal(run.status, 200, run.html);
      const intent = await intentOf(run.session!.clientSecret);
      assert.deepEqual([...intent.payment_method_types].sort(), ['card', 'eps', 'link', 'paypal', 'sepa_debit']);
      const method = (await methodOf(run.transactionId!))!;
      assert.equal(method.type, 'link');
      assert.equal(paymentMethodLabel(translator('ja'), method), 'Link');
    });

    test('a subscription in euros offers only reusable methods; paid by SEPA Direct Debit, it renews off-session with exactly that type', async () => {
      const p = await monthly(12);
      const run = await w.checkout(p.id, { email: 'erika@example.com', method: SEPA, country: 'DE' });
      assert.equal(run.status, 200, run.html);
      const intent = await intentOf(run.session!.clientSecret);
      assert.equal(intent.setup_future_usage, 'off_session');
      assert.equal(intent.automatic_payment_methods?.enabled, true);
      assert.deepEqual([...intent.payment_method_types].sort(), ['card', 'link', 'paypal', 'sepa_debit'], 'no EPS');
      const method = (await methodOf(run.transactionId!))!;
      assert.deepEqual(
        { type: method.type, last4: method.last4, brand: method.brand, expYear: method.expYear },
        { type: 'sepa_debit', last4: '3000', brand: '', expYear: 0 },
      );
      assert.equal(paymentMethodLabel(translator('en'), method), 'SEPA Direct Debit ending in 3000');
      assert.equal(paymentMethodLabel(translator('fr'), method), 'Prélèvement SEPA se terminant par 3000');

      await toNextCharge(run.transactionId!);
      const report = await w.app.services.billing.runDue();
      assert.equal(report.renewed, 1, JSON.stringify(report));
      const renewal = (await w.stripe.paymentIntents.list({ limit: 100 })).data.find(
        (i) => i.customer === intent.customer && i.id !== intent.id,
      )!;
      assert.deepEqual(renewal.allowed_payment_method_types, ['sepa_debit']);
      assert.equal(renewal.status, 'succeeded');
    });

    test('a free start (vaulted) sets up with automatic methods for off-session use: the SetupIntent leaves EPS out', async () => {
      const p = await product({ type: 'VAULTED', prices: prices(0) });
      const run = await w.checkout(p.id, { email: 'vault@example.com', method: SEPA, country: 'DE' });
      assert.equal(run.status, 200, run.html);
      assert.equal(run.session?.mode, 'setup');
      const setup = await w.stripe.setupIntents.retrieve(run.session!.clientSecret.split('_secret_')[0]!);
      assert.equal(setup.usage, 'off_session');
      assert.equal(setup.automatic_payment_methods?.enabled, true);
      assert.ok(!setup.payment_method_types.includes('eps'), setup.payment_method_types.join());
      assert.equal((await methodOf(run.transactionId!))!.type, 'sepa_debit');
    });

    test('a SEPA mandate revoked at the bank cancels the subscription at the end of its period by WALLET_PROVIDER, once; a vaulted method on it is deactivated', async () => {
      const german = { method: SEPA, country: 'DE' };
      const sub = await w.checkout((await monthly(9)).id, { email: 'revoke@example.com', ...german });
      const other = await w.checkout((await monthly(9)).id, { email: 'keeps@example.com', ...german });
      const vaulted = await w.checkout((await product({ type: 'VAULTED', prices: prices(0) })).id, {
        email: 'revoke-vault@example.com',
        ...german,
      });
      await w.settleEvents();
      for (const run of [sub, vaulted]) {
        const token = (await methodOf(run.transactionId!))!.token;
        await w.standin.revokeMandate(token.split('/')[1]!);
      }
      await w.settleEvents();
      const cancelled = (await stored(sub.transactionId!))!;
      assert.equal(cancelled.status, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(cancelled.whoCanceled, 'WALLET_PROVIDER');
      assert.ok(cancelled.nextCharge, 'paid up to the end of the period');
      const deactivated = (await stored(vaulted.transactionId!))!;
      assert.deepEqual([deactivated.status, deactivated.whoCanceled], ['VAULTED_STATUS_INACTIVE', 'WALLET_PROVIDER']);
      assert.equal(
        (await stored(other.transactionId!))!.status,
        'SUBSCRIPTION_STATUS_ACTIVE',
        "another mandate's subscription runs on",
      );
      const events = await w.app.services.processorEvents.runDue();
      assert.equal(events.processed + events.failed, 0, 'nothing left to act on');
    });

    test("a dispute PayPal decides ends the subscription by WALLET_PROVIDER; one on a card in Google Pay is the card network's (TRANSACTION_CLOUD_ADMIN)", async () => {
      const paypal = await w.checkout((await monthly(15)).id, {
        email: 'paypal@example.com',
        method: { type: 'paypal', billing_details: { email: 'paypal@example.com' } },
      });
      const google = await w.checkout((await monthly(15)).id, {
        email: 'google@example.com',
        card: 'pm_card_mastercard_googlePay',
      });
      assert.equal(paymentMethodLabel(translator('en'), (await methodOf(paypal.transactionId!))!), 'PayPal');
      assert.equal(
        paymentMethodLabel(translator('ar'), (await methodOf(google.transactionId!))!),
        'Mastercard المنتهية بـ 4444 عبر Google Pay',
      );
      await w.settleEvents();
      for (const run of [paypal, google]) await w.standin.openDispute(run.session!.clientSecret.split('_secret_')[0]!);
      await w.settleEvents();
      const byPaypal = (await stored(paypal.transactionId!))!;
      assert.deepEqual([byPaypal.status, byPaypal.whoCanceled], ['TRANSACTION_STATUS_REFUNDED', 'WALLET_PROVIDER']);
      const byCard = (await stored(google.transactionId!))!;
      assert.deepEqual([byCard.status, byCard.whoCanceled], ['TRANSACTION_STATUS_REFUNDED', 'TRANSACTION_CLOUD_ADMIN']);
      const read = await w.vendor.api(`/v1/transaction/${paypal.transactionId}`, { environment: 'production' });
      assert.equal(read.json.whoCanceled, 'WALLET_PROVIDER', 'the API says it as the seed does');
    });
  });
}
