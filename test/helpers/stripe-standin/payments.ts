import { createHmac, randomBytes } from 'node:crypto';
import { DECLINES, TEST_PAYMENT_METHODS, checkCard, type CardBehaviour, type CheckedCard } from './cards.ts';
import { ApiError, cardError, invalidRequest } from './errors.ts';
import { NO_REQUEST, newId, randomToken, type Obj, type RequestInfo, type Store } from './store.ts';
import { checkMethodAllowed, makeMandate, WALLET_TEST_METHODS, walletOf } from './methods.ts';

/** How the caller sees intents: the secret key sees everything, the publishable key (Stripe.js) a documented subset. */
export type KeyKind = 'secret' | 'publishable';

const PI_PUBLISHABLE_FIELDS = [
  'id',
  'object',
  'amount',
  'amount_details',
  'automatic_payment_methods',
  'canceled_at',
  'cancellation_reason',
  'capture_method',
  'client_secret',
  'confirmation_method',
  'created',
  'currency',
  'description',
  'last_payment_error',
  'livemode',
  'next_action',
  'payment_method',
  'payment_method_configuration_details',
  'payment_method_types',
  'processing',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'status',
];
const SI_PUBLISHABLE_FIELDS = [
  'id',
  'object',
  'automatic_payment_methods',
  'cancellation_reason',
  'client_secret',
  'created',
  'description',
  'last_setup_error',
  'livemode',
  'next_action',
  'payment_method',
  'payment_method_configuration_details',
  'payment_method_types',
  'status',
  'usage',
];

export function view(object: Obj, key: KeyKind): Obj {
  if (key === 'secret') return structuredClone(object);
  const fields =
    object.object === 'payment_intent'
      ? PI_PUBLISHABLE_FIELDS
      : object.object === 'setup_intent'
        ? SI_PUBLISHABLE_FIELDS
        : null;
  if (!fields) return structuredClone(object);
  return Object.fromEntries(fields.filter((f) => f in object).map((f) => [f, structuredClone(object[f])]));
}

/** Stripe's pricing for US cards, used by the stand-in for every currency: 2.9% + 30 (smallest unit of the charge currency). */
export const stripeFee = (amount: number) => Math.round((amount * 29) / 1000) + 30;
const DISPUTE_FEE = 1500;

const RETURN_URL_REQUIRED =
  "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.";
const AUTH_FAILURE_MESSAGE =
  'We are unable to authenticate your payment method. Please choose a different payment method and try again.';
const AUTH_REQUIRED = {
  code: 'authentication_required',
  decline_code: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
};
const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;
const money = (amount: number, currency: string) =>
  currency === 'usd' ? `$${(amount / 100).toFixed(2)}` : `${(amount / 100).toFixed(2)} ${currency}`;

const FINGERPRINT_KEY = randomBytes(32);

export interface ConfirmOptions {
  offSession?: boolean;
  returnUrl?: string | null;
  useStripeSdk?: boolean;
  errorOnRequiresAction?: boolean;
  key: KeyKind;
}

export class Payments {
  /** The return_url given when an intent was last confirmed (not a field Stripe shows on the object). */
  private readonly returnUrls = new Map<string, string>();

  /**
   * The account's balance (settlement) currency and the rate from a payment's currency into it: a payment
   * in another currency is settled converted, its fee charged in the balance currency, and its balance
   * transaction carries the `exchange_rate`, as Stripe's do. Unset: every payment settles in its own currency.
   */
  balance: { currency: string; exchangeRate: number } | undefined;

  private readonly store: Store;
  private readonly baseUrl: () => string;
  constructor(store: Store, baseUrl: () => string) {
    this.store = store;
    this.baseUrl = baseUrl;
  }

  /** An amount of `currency` as the balance holds it: converted, with the rate, when the balance is in another currency. */
  private settled(
    amount: number,
    currency: string,
  ): { amount: number; currency: string; exchange_rate: number | null } {
    if (!this.balance || this.balance.currency === currency) return { amount, currency, exchange_rate: null };
    return {
      amount: Math.round(amount * this.balance.exchangeRate),
      currency: this.balance.currency,
      exchange_rate: this.balance.exchangeRate,
    };
  }

  // ---------------------------------------------------------------- PaymentMethods

  createCardPaymentMethod(card: CheckedCard & { fingerprint: string }, billing: Obj | null, metadata: Obj | null): Obj {
    const billingAddress = billing?.address ?? {};
    const pm: Obj = {
      id: newId('pm'),
      object: 'payment_method',
      allow_redisplay: 'unspecified',
      billing_details: {
        address: {
          city: null,
          country: billingAddress.country ?? null,
          line1: null,
          line2: null,
          postal_code: billingAddress.postal_code ?? null,
          state: null,
        },
        email: billing?.email ?? null,
        name: billing?.name ?? null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: card.brand,
        checks: {
          address_line1_check: null,
          address_postal_code_check: billingAddress.postal_code ? 'pass' : null,
          cvc_check: card.cvcProvided ? 'pass' : null,
        },
        country: 'US',
        display_brand: card.brand,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        fingerprint: card.fingerprint,
        funding: 'credit',
        generated_from: null,
        last4: card.last4,
        networks: { available: [card.brand], preferred: null },
        regulated_status: 'unregulated',
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: this.store.created(),
      customer: null,
      customer_account: null,
      livemode: false,
      metadata: metadata ?? {},
      type: 'card',
    };
    this.store.behaviour.set(pm.id, card.behaviour);
    return this.store.put('payment_methods', pm);
  }

  /** A PaymentMethod of another type (SEPA, a US bank account, PayPal, Link): its details as otherMethodDetails made them. */
  createOtherPaymentMethod(type: string, details: Obj, billing: Obj | null, metadata: Obj | null): Obj {
    const pm: Obj = {
      id: newId('pm'),
      object: 'payment_method',
      allow_redisplay: 'unspecified',
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: billing?.email ?? null,
        name: billing?.name ?? null,
        phone: null,
        tax_id: null,
      },
      created: this.store.created(),
      customer: null,
      customer_account: null,
      livemode: false,
      metadata: metadata ?? {},
      type,
      [type]: details,
    };
    this.store.behaviour.set(pm.id, 'success');
    return this.store.put('payment_methods', pm);
  }

  /** Reads a card (number, expiry, CVC) once, into brand, last4, fingerprint and behaviour. */
  checkCard(card: Obj): CheckedCard & { fingerprint: string } {
    const checked = checkCard(card, new Date(this.store.now()));
    const digits = String(card.number).replace(/[\s-]/g, '');
    return {
      ...checked,
      fingerprint: createHmac('sha256', FINGERPRINT_KEY).update(digits).digest('base64url').slice(0, 16),
    };
  }

  /** A `payment_method` value: an existing pm_…, or one of Stripe's test ids (pm_card_visa…), which makes a fresh PaymentMethod. */
  resolvePaymentMethod(id: string, param: string): Obj {
    const wallet = WALLET_TEST_METHODS[id];
    if (wallet) {
      const year = new Date(this.store.now()).getUTCFullYear() + 3;
      const card = this.checkCard({ number: wallet.number, exp_month: 12, exp_year: year, cvc: '123' });
      if (wallet.type === 'link')
        return this.createOtherPaymentMethod(
          'link',
          { email: 'buyer@example.com', persistent_token: null },
          null,
          null,
        );
      const pm = this.createCardPaymentMethod(card, null, null);
      pm.card.wallet = walletOf(wallet.wallet!, card.last4);
      return pm;
    }
    const number = TEST_PAYMENT_METHODS[id];
    if (number) {
      const year = new Date(this.store.now()).getUTCFullYear() + 3;
      return this.createCardPaymentMethod(
        this.checkCard({ number, exp_month: 12, exp_year: year, cvc: '123' }),
        null,
        null,
      );
    }
    return this.store.get('payment_methods', id, param);
  }

  /** Stripe's rules for using a PaymentMethod with an intent for `customer`. */
  checkUsable(pm: Obj, customer: string | null, param = 'payment_method'): void {
    if (this.store.spent.has(pm.id))
      throw invalidRequest(
        'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.',
        { param },
      );
    if (pm.customer && !customer)
      throw invalidRequest(
        `The provided PaymentMethod ${pm.id} is attached to a Customer. To use it, you must also provide that Customer's ID in the \`customer\` parameter.`,
        { param },
      );
    if (pm.customer && customer && pm.customer !== customer)
      throw invalidRequest(`The provided PaymentMethod ${pm.id} belongs to a different Customer than ${customer}.`, {
        param,
      });
  }

  attach(pm: Obj, customerId: string, request: RequestInfo): Obj {
    this.store.get('customers', customerId, 'customer');
    if (pm.customer === customerId) return pm;
    if (pm.customer)
      throw invalidRequest('The payment method you provided has already been attached to a customer.', {
        param: 'customer',
      });
    if (this.store.spent.has(pm.id))
      throw invalidRequest(
        'This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.',
        { param: 'payment_method' },
      );
    // Attaching validates the card with the bank: a card that declines everything cannot be saved (0341 can).
    const behaviour = this.store.behaviour.get(pm.id)!;
    const decline = behaviour === 'charge_fails' ? undefined : DECLINES[behaviour];
    if (decline) throw cardError(decline.message, { code: decline.code, decline_code: decline.decline_code });
    pm.customer = customerId;
    this.store.emit('payment_method.attached', pm, request);
    return pm;
  }

  detach(pm: Obj, request: RequestInfo): Obj {
    if (!pm.customer)
      throw invalidRequest(
        'The payment method you provided is not attached to a customer so detachment is impossible.',
        { param: 'payment_method' },
      );
    const previous = pm.customer;
    const customer = this.store.find('customers', previous);
    if (customer && customer.invoice_settings.default_payment_method === pm.id)
      customer.invoice_settings.default_payment_method = null;
    pm.customer = null;
    this.store.spent.add(pm.id);
    this.store.emit('payment_method.detached', pm, request, { customer: previous });
    return pm;
  }

  // ---------------------------------------------------------------- PaymentIntents

  newPaymentIntent(p: Obj): Obj {
    const id = newId('pi');
    const automatic = p.automatic_payment_methods ?? null;
    return {
      id,
      object: 'payment_intent',
      allowed_payment_method_types: p.allowed_payment_method_types ?? null,
      amount: p.amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: automatic,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      client_secret: `${id}_secret_${randomToken(25)}`,
      confirmation_method: 'automatic',
      created: this.store.created(),
      currency: p.currency,
      customer: p.customer ?? null,
      customer_account: null,
      description: p.description ?? null,
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      managed_payments: null,
      metadata: p.metadata ?? {},
      next_action: null,
      on_behalf_of: null,
      payment_method: p.payment_method ?? null,
      payment_method_configuration_details: automatic ? { id: `pmc_${randomToken(24)}`, parent: null } : null,
      payment_method_options: {
        card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
      },
      payment_method_types: p.payment_method_types ?? ['card'],
      payment_record: null,
      processing: null,
      receipt_email: p.receipt_email ?? null,
      review: null,
      setup_future_usage: p.setup_future_usage ?? null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: p.statement_descriptor_suffix ?? null,
      status: p.payment_method ? 'requires_confirmation' : 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    };
  }

  /** Confirms a PaymentIntent: the bank's answer for its card decides succeeded, requires_action or a decline (thrown as Stripe's 402, after the state is kept). */
  confirmPaymentIntent(pi: Obj, o: ConfirmOptions, request: RequestInfo): void {
    const confirmable = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
    if (!confirmable.includes(pi.status)) {
      const message =
        pi.status === 'succeeded'
          ? 'You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.'
          : `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${confirmable.join(', ')}.`;
      throw invalidRequest(message, { code: 'payment_intent_unexpected_state', payment_intent: view(pi, o.key) });
    }
    if (!pi.payment_method)
      throw invalidRequest(
        "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent, specify a payment method with the `payment_method` parameter.",
        { code: 'payment_intent_unexpected_state', payment_intent: view(pi, o.key) },
      );
    if (
      o.key === 'secret' &&
      !o.returnUrl &&
      pi.automatic_payment_methods?.enabled &&
      pi.automatic_payment_methods.allow_redirects !== 'never'
    )
      throw invalidRequest(RETURN_URL_REQUIRED, { param: 'return_url' });
    const pm = this.store.get('payment_methods', pi.payment_method, 'payment_method');
    checkMethodAllowed(pi, pm);
    if (o.returnUrl) this.returnUrls.set(pi.id, o.returnUrl);
    if (this.needsAuthentication(pm)) {
      if (o.offSession || o.errorOnRequiresAction)
        this.failPayment(pi, pm, AUTH_REQUIRED, { charge: Boolean(o.offSession), key: o.key }, request);
      this.requireAction('payment_intent', pi, o, request);
      this.store.emit('payment_intent.requires_action', pi, request);
      return;
    }
    this.pay(pi, pm, false, o.key, request);
  }

  private needsAuthentication(pm: Obj): boolean {
    const behaviour = this.store.behaviour.get(pm.id);
    return (
      behaviour === 'authenticate_always' ||
      (behaviour === 'authenticate_unless_setup' && !this.store.setUpWithAuthentication.has(pm.id))
    );
  }

  private requireAction(
    kind: 'payment_intent' | 'setup_intent',
    intent: Obj,
    o: ConfirmOptions,
    _request: RequestInfo,
  ): void {
    for (const [token, challenge] of this.store.challenges)
      if (challenge.id === intent.id) this.store.challenges.delete(token);
    const token = randomToken(32);
    this.store.challenges.set(token, { kind, id: intent.id });
    const url = `${this.baseUrl()}/3ds/challenge/${token}`;
    intent.status = 'requires_action';
    intent.next_action =
      o.returnUrl && !o.useStripeSdk
        ? { type: 'redirect_to_url', redirect_to_url: { return_url: o.returnUrl, url } }
        : {
            type: 'use_stripe_sdk',
            use_stripe_sdk: { source: `src_${randomToken(24)}`, stripe_js: url, type: 'three_d_secure_redirect' },
          };
  }

  /** The bank is asked for the money: the card's behaviour answers. */
  private pay(pi: Obj, pm: Obj, authenticated: boolean, key: KeyKind, request: RequestInfo): void {
    const behaviour = this.store.behaviour.get(pm.id)!;
    const decline = DECLINES[behaviour];
    if (decline) this.failPayment(pi, pm, decline, { charge: true, key }, request);
    const charge = this.newCharge(pi, pm, authenticated);
    const inBalance = this.settled(pi.amount, pi.currency);
    const txn = this.newBalanceTransaction({
      ...inBalance,
      fee: stripeFee(inBalance.amount),
      feeDescription: 'Stripe processing fees',
      source: charge.id,
      type: 'charge',
      category: 'charge',
      description: pi.description,
    });
    charge.balance_transaction = txn.id;
    this.store.put('charges', charge);
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
    pi.latest_charge = charge.id;
    pi.next_action = null;
    pi.last_payment_error = null;
    if (pi.setup_future_usage && pi.customer && !pm.customer) {
      pm.customer = pi.customer;
      this.store.emit('payment_method.attached', pm, request);
      makeMandate(this.store, pm);
    }
    if (pi.setup_future_usage && authenticated) this.store.setUpWithAuthentication.add(pm.id);
    if (!pm.customer) this.store.spent.add(pm.id);
    this.store.emit('charge.succeeded', charge, request);
    this.store.emit('payment_intent.succeeded', pi, request);
    if (behaviour === 'dispute') this.openDispute(charge);
  }

  private failPayment(
    pi: Obj,
    pm: Obj,
    decline: { code: string; decline_code: string; message: string },
    o: { charge: boolean; key: KeyKind },
    request: RequestInfo,
  ): never {
    let charge: Obj | null = null;
    if (o.charge) {
      charge = this.newCharge(pi, pm, false, decline);
      this.store.put('charges', charge);
      pi.latest_charge = charge.id;
      this.store.emit('charge.failed', charge, request);
    }
    const error: Obj = {
      ...(charge ? { charge: charge.id } : {}),
      code: decline.code,
      decline_code: decline.decline_code,
      doc_url: docUrl(decline.code),
      message: decline.message,
      payment_method: structuredClone(pm),
      type: 'card_error',
    };
    pi.last_payment_error = error;
    pi.status = 'requires_payment_method';
    pi.payment_method = null;
    pi.next_action = null;
    this.store.emit('payment_intent.payment_failed', pi, request);
    throw new ApiError(402, { ...error, payment_intent: view(pi, o.key) });
  }

  private newCharge(
    pi: Obj,
    pm: Obj,
    authenticated: boolean,
    decline?: { code: string; decline_code: string; message: string },
  ): Obj {
    const ok = !decline;
    return {
      id: newId('ch'),
      object: 'charge',
      amount: pi.amount,
      amount_captured: ok ? pi.amount : 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: null,
      billing_details: structuredClone(pm.billing_details),
      calculated_statement_descriptor: pi.statement_descriptor_suffix
        ? `OPENTILL* ${pi.statement_descriptor_suffix}`
        : 'OPENTILL',
      captured: ok,
      created: this.store.created(),
      currency: pi.currency,
      customer: pi.customer,
      description: pi.description,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: decline?.code ?? null,
      failure_message: decline?.message ?? null,
      fraud_details: {},
      livemode: false,
      metadata: structuredClone(pi.metadata),
      on_behalf_of: null,
      outcome: ok
        ? {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            risk_score: 20,
            seller_message: 'Payment complete.',
            type: 'authorized',
          }
        : {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'declined_by_network',
            reason: decline.decline_code,
            risk_level: 'normal',
            risk_score: 20,
            seller_message:
              decline.decline_code === 'generic_decline'
                ? 'The bank did not return any further details with this decline.'
                : `The bank returned the decline code \`${decline.decline_code}\`.`,
            type: 'issuer_declined',
          },
      paid: ok,
      payment_intent: pi.id,
      payment_method: pm.id,
      payment_method_details:
        pm.type !== 'card'
          ? { type: pm.type, [pm.type]: structuredClone(pm[pm.type]) }
          : {
              card: {
                amount_authorized: ok ? pi.amount : null,
                brand: pm.card.brand,
                checks: structuredClone(pm.card.checks),
                country: pm.card.country,
                exp_month: pm.card.exp_month,
                exp_year: pm.card.exp_year,
                fingerprint: pm.card.fingerprint,
                funding: pm.card.funding,
                installments: null,
                last4: pm.card.last4,
                mandate: null,
                network: pm.card.brand,
                network_token: { used: false },
                regulated_status: 'unregulated',
                three_d_secure: authenticated
                  ? {
                      authentication_flow: 'challenge',
                      electronic_commerce_indicator: '05',
                      result: 'authenticated',
                      result_reason: null,
                      transaction_id: randomBytes(16).toString('hex'),
                      version: '2.2.0',
                    }
                  : null,
                wallet: structuredClone(pm.card.wallet),
              },
              type: 'card',
            },
      radar_options: {},
      receipt_email: pi.receipt_email,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: pi.statement_descriptor_suffix,
      status: ok ? 'succeeded' : 'failed',
      transfer_data: null,
      transfer_group: null,
    };
  }

  /** A balance transaction as Stripe makes one: `net` is the amount less the fee, in the balance's currency. */
  newBalanceTransaction(t: {
    amount: number;
    currency: string;
    exchange_rate?: number | null;
    fee: number;
    feeDescription: string;
    source: string;
    type: string;
    category: string;
    description: string | null;
  }): Obj {
    const created = this.store.created();
    return this.store.put('balance_transactions', {
      id: newId('txn'),
      object: 'balance_transaction',
      amount: t.amount,
      available_on: created,
      balance_type: 'payments',
      created,
      currency: t.currency,
      description: t.description,
      exchange_rate: t.exchange_rate ?? null,
      fee: t.fee,
      fee_details:
        t.fee === 0
          ? []
          : [
              {
                amount: t.fee,
                application: null,
                currency: t.currency,
                description: t.feeDescription,
                type: 'stripe_fee',
              },
            ],
      net: t.amount - t.fee,
      reporting_category: t.category,
      source: t.source,
      status: 'available',
      type: t.type,
    });
  }

  cancelPaymentIntent(pi: Obj, reason: string | null, key: KeyKind, request: RequestInfo): Obj {
    const cancelable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'];
    if (!cancelable.includes(pi.status))
      throw invalidRequest(
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(', ')}, processing.`,
        { code: 'payment_intent_unexpected_state', payment_intent: view(pi, key) },
      );
    for (const [token, challenge] of this.store.challenges)
      if (challenge.id === pi.id) this.store.challenges.delete(token);
    pi.status = 'canceled';
    pi.canceled_at = this.store.created();
    pi.cancellation_reason = reason;
    pi.next_action = null;
    this.store.emit('payment_intent.canceled', pi, request);
    return pi;
  }

  // ---------------------------------------------------------------- SetupIntents

  newSetupIntent(p: Obj): Obj {
    const id = newId('seti');
    const automatic = p.automatic_payment_methods ?? null;
    return {
      id,
      object: 'setup_intent',
      allowed_payment_method_types: p.allowed_payment_method_types ?? null,
      application: null,
      automatic_payment_methods: automatic,
      cancellation_reason: null,
      client_secret: `${id}_secret_${randomToken(25)}`,
      created: this.store.created(),
      customer: p.customer ?? null,
      customer_account: null,
      description: p.description ?? null,
      excluded_payment_method_types: null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: null,
      livemode: false,
      mandate: null,
      metadata: p.metadata ?? {},
      next_action: null,
      on_behalf_of: null,
      payment_method: p.payment_method ?? null,
      payment_method_configuration_details: automatic ? { id: `pmc_${randomToken(24)}`, parent: null } : null,
      payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
      payment_method_types: p.payment_method_types ?? ['card'],
      single_use_mandate: null,
      status: p.payment_method ? 'requires_confirmation' : 'requires_payment_method',
      usage: p.usage ?? 'off_session',
    };
  }

  confirmSetupIntent(si: Obj, o: ConfirmOptions, request: RequestInfo): void {
    const confirmable = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
    if (!confirmable.includes(si.status))
      throw invalidRequest(
        si.status === 'succeeded'
          ? 'You cannot confirm this SetupIntent because it has already succeeded.'
          : `You cannot confirm this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be confirmed: ${confirmable.join(', ')}.`,
        { code: 'setup_intent_unexpected_state', setup_intent: view(si, o.key) },
      );
    if (!si.payment_method)
      throw invalidRequest(
        "You cannot confirm this SetupIntent because it's missing a payment method. Update the SetupIntent with a payment method and then confirm it again.",
        { code: 'setup_intent_unexpected_state', setup_intent: view(si, o.key) },
      );
    if (
      o.key === 'secret' &&
      !o.returnUrl &&
      si.automatic_payment_methods?.enabled &&
      si.automatic_payment_methods.allow_redirects !== 'never'
    )
      throw invalidRequest(RETURN_URL_REQUIRED.replace('This PaymentIntent', 'This SetupIntent'), {
        param: 'return_url',
      });
    const pm = this.store.get('payment_methods', si.payment_method, 'payment_method');
    checkMethodAllowed(si, pm);
    if (o.returnUrl) this.returnUrls.set(si.id, o.returnUrl);
    const behaviour = this.store.behaviour.get(pm.id)!;
    if (behaviour === 'authenticate_always' || behaviour === 'authenticate_unless_setup') {
      this.requireAction('setup_intent', si, o, request);
      this.store.emit('setup_intent.requires_action', si, request);
      return;
    }
    this.completeSetup(si, pm, false, o.key, request);
  }

  private completeSetup(si: Obj, pm: Obj, authenticated: boolean, key: KeyKind, request: RequestInfo): void {
    const behaviour = this.store.behaviour.get(pm.id)!;
    const decline = behaviour === 'charge_fails' ? undefined : DECLINES[behaviour];
    if (decline) {
      const error: Obj = {
        code: decline.code,
        decline_code: decline.decline_code,
        doc_url: docUrl(decline.code),
        message: decline.message,
        payment_method: structuredClone(pm),
        type: 'card_error',
      };
      si.last_setup_error = error;
      si.status = 'requires_payment_method';
      si.payment_method = null;
      si.next_action = null;
      this.store.emit('setup_intent.setup_failed', si, request);
      throw new ApiError(402, { ...error, setup_intent: view(si, key) });
    }
    if (si.customer && !pm.customer) {
      pm.customer = si.customer;
      this.store.emit('payment_method.attached', pm, request);
      makeMandate(this.store, pm);
    }
    if (authenticated) this.store.setUpWithAuthentication.add(pm.id);
    si.status = 'succeeded';
    si.next_action = null;
    si.last_setup_error = null;
    this.store.emit('setup_intent.succeeded', si, request);
  }

  cancelSetupIntent(si: Obj, reason: string | null, key: KeyKind, request: RequestInfo): Obj {
    const cancelable = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
    if (!cancelable.includes(si.status))
      throw invalidRequest(
        `You cannot cancel this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be canceled: ${cancelable.join(', ')}.`,
        { code: 'setup_intent_unexpected_state', setup_intent: view(si, key) },
      );
    for (const [token, challenge] of this.store.challenges)
      if (challenge.id === si.id) this.store.challenges.delete(token);
    si.status = 'canceled';
    si.cancellation_reason = reason;
    si.next_action = null;
    this.store.emit('setup_intent.canceled', si, request);
    return si;
  }

  // ---------------------------------------------------------------- 3-D Secure

  /** The customer's answer on the challenge page settles the intent. Returns where a top-level (redirect) challenge goes next. */
  settleChallenge(token: string, outcome: 'complete' | 'fail'): { intent: Obj; returnUrl: string | null } | null {
    const challenge = this.store.challenges.get(token);
    if (!challenge) return null;
    this.store.challenges.delete(token);
    const intent = this.store.get(
      challenge.kind === 'payment_intent' ? 'payment_intents' : 'setup_intents',
      challenge.id,
    );
    if (intent.status !== 'requires_action') return null;
    const pm = this.store.get('payment_methods', intent.payment_method);
    try {
      if (challenge.kind === 'payment_intent') {
        if (outcome === 'complete') this.pay(intent, pm, true, 'secret', NO_REQUEST);
        else {
          intent.last_payment_error = {
            code: 'payment_intent_authentication_failure',
            doc_url: docUrl('payment_intent_authentication_failure'),
            message: AUTH_FAILURE_MESSAGE,
            payment_method: structuredClone(pm),
            type: 'invalid_request_error',
          };
          intent.status = 'requires_payment_method';
          intent.payment_method = null;
          intent.next_action = null;
          this.store.emit('payment_intent.payment_failed', intent, NO_REQUEST);
        }
      } else if (outcome === 'complete') this.completeSetup(intent, pm, true, 'secret', NO_REQUEST);
      else {
        intent.last_setup_error = {
          code: 'setup_intent_authentication_failure',
          doc_url: docUrl('setup_intent_authentication_failure'),
          message: AUTH_FAILURE_MESSAGE,
          payment_method: structuredClone(pm),
          type: 'invalid_request_error',
        };
        intent.status = 'requires_payment_method';
        intent.payment_method = null;
        intent.next_action = null;
        this.store.emit('setup_intent.setup_failed', intent, NO_REQUEST);
      }
    } catch (e) {
      if (!(e instanceof ApiError)) throw e; // a decline after authentication: the intent already says so
    }
    return { intent, returnUrl: this.returnUrls.get(intent.id) ?? null };
  }

  // ---------------------------------------------------------------- Refunds and disputes

  refund(
    p: { payment_intent?: string; charge?: string; amount?: number; reason?: string | null; metadata?: Obj | null },
    request: RequestInfo,
  ): Obj {
    let charge: Obj | undefined;
    let piId: string | null = null;
    if (p.payment_intent) {
      const pi = this.store.get('payment_intents', p.payment_intent, 'payment_intent');
      if (pi.status !== 'succeeded' || !pi.latest_charge)
        throw invalidRequest(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
          param: 'payment_intent',
        });
      charge = this.store.get('charges', pi.latest_charge);
      piId = pi.id;
    }
    if (p.charge) {
      const byCharge = this.store.get('charges', p.charge, 'charge');
      if (charge && charge.id !== byCharge.id)
        throw invalidRequest(`The charge ${byCharge.id} does not belong to the PaymentIntent ${p.payment_intent}.`, {
          param: 'charge',
        });
      charge = byCharge;
      piId = byCharge.payment_intent;
    }
    if (!charge)
      throw invalidRequest(
        'One of the following params should be provided for this request: payment_intent or charge.',
        { param: 'payment_intent' },
      );
    if (charge.status !== 'succeeded')
      throw invalidRequest(`Charge ${charge.id} has not succeeded and cannot be refunded.`, { param: 'charge' });
    const remaining = charge.amount - charge.amount_refunded;
    if (remaining === 0)
      throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' });
    const dispute = this.store.all('disputes').find((d) => d.charge === charge.id);
    if (dispute && dispute.status !== 'won')
      throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, {
        code: 'charge_disputed',
      });
    const amount = p.amount ?? remaining;
    if (amount > remaining)
      throw invalidRequest(
        `Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(remaining, charge.currency)})`,
        { param: 'amount' },
      );
    const refund: Obj = {
      id: newId('re'),
      object: 'refund',
      amount,
      balance_transaction: null,
      charge: charge.id,
      created: this.store.created(),
      currency: charge.currency,
      destination_details: {
        card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' },
        type: 'card',
      },
      metadata: p.metadata ?? {},
      payment_intent: piId,
      reason: p.reason ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    };
    const refunded = this.settled(amount, charge.currency);
    refund.balance_transaction = this.newBalanceTransaction({
      ...refunded,
      amount: -refunded.amount,
      fee: 0,
      feeDescription: '',
      source: refund.id,
      type: 'refund',
      category: 'refund',
      description: `REFUND FOR CHARGE (${charge.description ?? charge.id})`,
    }).id;
    this.store.put('refunds', refund);
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    this.store.emit('refund.created', refund, request);
    this.store.emit('charge.refunded', charge, request, previous);
    return refund;
  }

  /**
   * The refund did not reach the customer after all (a closed card account): `failed`, its money back in
   * the balance, the charge's refunded amount reduced, as Stripe reports a refund that fails days later.
   */
  failRefund(refund: Obj): Obj {
    if (refund.status === 'failed' || refund.status === 'canceled')
      throw new Error(`Refund ${refund.id} has already ${refund.status}`);
    const charge = this.store.get('charges', refund.charge);
    const previous = { status: refund.status };
    refund.status = 'failed';
    refund.failure_reason = 'expired_or_canceled_card';
    const back = this.settled(refund.amount, refund.currency);
    refund.failure_balance_transaction = this.newBalanceTransaction({
      ...back,
      fee: 0,
      feeDescription: '',
      source: refund.id,
      type: 'refund_failure',
      category: 'refund_failure',
      description: `REFUND FAILURE FOR CHARGE (${charge.description ?? charge.id})`,
    }).id;
    charge.amount_refunded -= refund.amount;
    charge.refunded = false;
    this.store.emit('refund.failed', refund, NO_REQUEST, previous);
    this.store.emit('refund.updated', refund, NO_REQUEST, previous);
    this.store.emit('charge.refund.updated', refund, NO_REQUEST, previous);
    return refund;
  }

  openDispute(charge: Obj): Obj {
    const amount = charge.amount - charge.amount_refunded;
    if (charge.status !== 'succeeded' || amount <= 0)
      throw new Error(`Charge ${charge.id} has nothing left to dispute`);
    const created = this.store.created();
    const dispute: Obj = {
      id: newId('dp'),
      object: 'dispute',
      amount,
      balance_transactions: [],
      charge: charge.id,
      created,
      currency: charge.currency,
      enhanced_eligibility_types: [],
      evidence: {
        access_activity_log: null,
        billing_address: null,
        cancellation_policy: null,
        customer_email_address: null,
        customer_name: null,
        product_description: null,
        receipt: null,
        refund_policy: null,
        service_date: null,
        uncategorized_text: null,
      },
      evidence_details: {
        due_by: created + 7 * 86400,
        enhanced_eligibility: {},
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      intended_submission_method: null,
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      network_reason_code: '10.4',
      payment_intent: charge.payment_intent,
      payment_method_details: disputeDetails(charge.payment_method_details),
      reason: 'fraudulent',
      status: 'needs_response',
    };
    const withdrawn = this.settled(amount, charge.currency);
    const withdrawal = this.newBalanceTransaction({
      ...withdrawn,
      amount: -withdrawn.amount,
      fee: DISPUTE_FEE,
      feeDescription: 'Dispute fee',
      source: dispute.id,
      type: 'adjustment',
      category: 'dispute',
      description: `Chargeback withdrawal for ${charge.id}`,
    });
    dispute.balance_transactions.push(structuredClone(withdrawal));
    this.store.put('disputes', dispute);
    charge.disputed = true;
    this.store.emit('charge.dispute.created', dispute, NO_REQUEST);
    this.store.emit('charge.dispute.funds_withdrawn', dispute, NO_REQUEST);
    return dispute;
  }

  closeDispute(dispute: Obj, outcome: 'won' | 'lost'): Obj {
    if (dispute.status === 'won' || dispute.status === 'lost')
      throw new Error(`Dispute ${dispute.id} is already closed (${dispute.status})`);
    const previous = { status: dispute.status };
    dispute.status = outcome;
    if (outcome === 'won') {
      const reinstatement = this.newBalanceTransaction({
        ...this.settled(dispute.amount, dispute.currency),
        fee: 0,
        feeDescription: '',
        source: dispute.id,
        type: 'adjustment',
        category: 'dispute_reversal',
        description: `Chargeback reversal for ${dispute.charge}`,
      });
      dispute.balance_transactions.push(structuredClone(reinstatement));
    }
    this.store.emit('charge.dispute.closed', dispute, NO_REQUEST, previous);
    if (outcome === 'won') this.store.emit('charge.dispute.funds_reinstated', dispute, NO_REQUEST);
    return dispute;
  }
}

/** A dispute's `payment_method_details`: a card's chargeback, PayPal's own case, or (a bank's debit returned) the method's type alone. */
function disputeDetails(details: Obj): Obj {
  if (details.type === 'card')
    return { card: { brand: details.card.brand, case_type: 'chargeback', network_reason_code: '10.4' }, type: 'card' };
  if (details.type === 'paypal')
    return { paypal: { case_id: `PP-D-${randomToken(8)}`, reason_code: 'PAD' }, type: 'paypal' };
  return { type: details.type };
}

export type { CardBehaviour };
