import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { rejection } from './rejection.ts';

const SEPA = {
  type: 'sepa_debit',
  sepa_debit: { iban: 'DE89370400440532013000' },
  billing_details: { name: 'Erika Mustermann', email: 'erika@example.com' },
} as const;

/**
 * Ways to pay beyond cards as API 2026-10-28 checks them: which types an intent offers (allowed, or
 * dynamic by currency, reuse and redirects), which PaymentMethod may confirm it, the other types'
 * PaymentMethods, mandates, and payment method domains.
 */
describe('Stripe stand-in: payment method types, mandates, domains', () => {
  let s: StripeStandIn;
  let stripe: Stripe;
  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
    stripe = s.client();
  });
  after(() => s.close());

  test('automatic payment methods offer every activated type that takes the currency; kept for later, only reusable ones', async () => {
    const eur = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      automatic_payment_methods: { enabled: true },
    });
    assert.deepEqual(eur.payment_method_types, ['card', 'link', 'sepa_debit', 'paypal', 'eps']);
    const kept = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      automatic_payment_methods: { enabled: true },
      setup_future_usage: 'off_session',
    });
    assert.deepEqual(kept.payment_method_types, ['card', 'link', 'sepa_debit', 'paypal']);
    const noRedirects = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    assert.deepEqual(noRedirects.payment_method_types, ['card', 'link', 'us_bank_account']);
    const setup = await stripe.setupIntents.create({
      automatic_payment_methods: { enabled: true },
      usage: 'off_session',
    });
    assert.ok(!setup.payment_method_types.includes('eps'), setup.payment_method_types.join());
  });

  test('allowed types are checked: not with automatic ones, activated, of the currency, reusable when kept', async () => {
    const both = await rejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'eur',
        allowed_payment_method_types: ['card'],
        automatic_payment_methods: { enabled: true },
      }),
    );
    assert.match(
      both.message,
      /only specify one of these parameters: allowed_payment_method_types, automatic_payment_methods/,
    );
    const inactive = await rejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'eur', allowed_payment_method_types: ['ideal'] }),
    );
    assert.equal(inactive.param, 'allowed_payment_method_types[0]');
    assert.match(inactive.message, /ideal is invalid.*activated in your dashboard/);
    const currency = await rejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'usd',
        allowed_payment_method_types: ['card', 'sepa_debit'],
      }),
    );
    assert.equal(currency.param, 'allowed_payment_method_types[1]');
    assert.match(currency.message, /currency provided \(usd\) is invalid.*sepa_debit supports only eur/);
    const notReusable = await rejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'eur',
        allowed_payment_method_types: ['eps'],
        setup_future_usage: 'off_session',
      }),
    );
    assert.match(notReusable.message, /eps does not support setup_future_usage/);
    const setup = await rejection(stripe.setupIntents.create({ allowed_payment_method_types: ['card', 'eps'] }));
    assert.equal(setup.param, 'allowed_payment_method_types[1]');
    // What opentill's off-session charge sends: exactly the stored method's type.
    const ok = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      allowed_payment_method_types: ['sepa_debit'],
    });
    assert.deepEqual(ok.payment_method_types, ['sepa_debit']);
    assert.equal(ok.automatic_payment_methods, null);
  });

  test('a PaymentMethod of a type the intent does not offer cannot confirm it', async () => {
    const customer = await stripe.customers.create({ email: 'erika@example.com' });
    const sepa = await stripe.paymentMethods.create(SEPA);
    const cardOnly = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      customer: customer.id,
      allowed_payment_method_types: ['card'],
    });
    const refused = await rejection(stripe.paymentIntents.confirm(cardOnly.id, { payment_method: sepa.id }));
    assert.equal(refused.code, 'payment_intent_incompatible_payment_method');
    assert.match(refused.message, /\(sepa_debit\) is not allowed for this PaymentIntent.*types: card\./);
    const usd = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
    });
    const wrongCurrency = await rejection(
      stripe.paymentIntents.confirm(usd.id, { payment_method: sepa.id, return_url: 'https://shop.example/back' }),
    );
    assert.equal(wrongCurrency.code, 'payment_intent_incompatible_payment_method');
  });

  test("SEPA PaymentMethods need a valid IBAN and the payer's name and e-mail; a kept one gets a mandate the bank can revoke", async () => {
    const badIban = await rejection(
      stripe.paymentMethods.create({ ...SEPA, sepa_debit: { iban: 'DE89370400440532013001' } }),
    );
    assert.equal(badIban.code, 'invalid_bank_account_iban');
    const noName = await rejection(
      stripe.paymentMethods.create({ ...SEPA, billing_details: { email: 'erika@example.com' } }),
    );
    assert.equal(noName.param, 'billing_details[name]');
    const mixed = await rejection(
      stripe.paymentMethods.create({ ...SEPA, type: 'paypal' } as Stripe.PaymentMethodCreateParams),
    );
    assert.equal(mixed.param, 'sepa_debit');

    const customer = await stripe.customers.create({ email: 'erika@example.com' });
    const pm = await stripe.paymentMethods.create(SEPA);
    assert.deepEqual([pm.sepa_debit?.last4, pm.sepa_debit?.country], ['3000', 'DE']);
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      customer: customer.id,
      payment_method: pm.id,
      automatic_payment_methods: { enabled: true },
      setup_future_usage: 'off_session',
      confirm: true,
      return_url: 'https://shop.example/back',
      expand: ['latest_charge'],
    });
    assert.equal(intent.status, 'succeeded');
    const charge = intent.latest_charge as Stripe.Charge;
    assert.equal(charge.payment_method_details?.type, 'sepa_debit');
    const mandate = await s.revokeMandate(pm.id);
    assert.equal(mandate.status, 'inactive');
    assert.equal((await stripe.mandates.retrieve(mandate.id)).status, 'inactive');
    const event = s.events().find((e) => e.type === 'mandate.updated')!;
    assert.equal((event.data.object as Stripe.Mandate).payment_method, pm.id);
    assert.deepEqual(event.data.previous_attributes, { status: 'active' });
    await assert.rejects(s.revokeMandate(pm.id), /no active mandate/, 'a mandate is revoked once');
  });

  test('cards in Apple Pay and Google Pay carry their wallet, on the PaymentMethod and the charge', async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      payment_method: 'pm_card_visa_applePay',
      allowed_payment_method_types: ['card'],
      confirm: true,
      expand: ['latest_charge', 'payment_method'],
    });
    const pm = intent.payment_method as Stripe.PaymentMethod;
    assert.equal(pm.card?.wallet?.type, 'apple_pay');
    assert.equal((intent.latest_charge as Stripe.Charge).payment_method_details?.card?.wallet?.type, 'apple_pay');
  });

  test('payment method domains: a host name only, once per account, and Apple Pay inactive where it cannot work', async () => {
    const url = await rejection(stripe.paymentMethodDomains.create({ domain_name: 'https://shop.example.com' }));
    assert.equal(url.param, 'domain_name');
    const created = await stripe.paymentMethodDomains.create({ domain_name: 'Shop.Example.com' });
    assert.deepEqual(
      [created.domain_name, created.enabled, created.apple_pay.status],
      ['shop.example.com', true, 'active'],
    );
    const twice = await rejection(stripe.paymentMethodDomains.create({ domain_name: 'shop.example.com' }));
    assert.equal(twice.code, 'resource_already_exists');
    const local = await stripe.paymentMethodDomains.create({ domain_name: 'checkout.localhost' });
    assert.equal(local.apple_pay.status, 'inactive');
    assert.match(local.apple_pay.status_details?.error_message ?? '', /not a public domain name/);
    const listed = await stripe.paymentMethodDomains.list({ domain_name: 'shop.example.com' });
    assert.deepEqual(
      listed.data.map((d) => d.id),
      [created.id],
    );
    const disabled = await stripe.paymentMethodDomains.update(created.id, { enabled: false });
    assert.equal(disabled.enabled, false);
    const unknown = await rejection(
      stripe.paymentMethodDomains.create({ domain_name: 'a.example.com', colour: 1 } as never),
    );
    assert.equal(unknown.code, 'parameter_unknown');
  });
});
