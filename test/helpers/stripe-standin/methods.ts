import { createHmac, randomBytes } from 'node:crypto';
import { invalidRequest, missingParam } from './errors.ts';
import { NO_REQUEST, newId, type Obj, type Store } from './store.ts';

/*
 * Payment methods beyond cards, as API 2026-10-28 has them: which types the stand-in account has
 * turned on (its "dashboard"), which an intent offers (dynamic payment methods, filtered by currency,
 * reuse and redirects, or the types it allows), PaymentMethods of those types, mandates, and payment
 * method domains (Apple Pay and the other wallets need the page's domain registered).
 */

interface AccountMethod {
  /** Currencies the type takes; null: any. */
  currencies: readonly string[] | null;
  /** Can be saved and charged off-session (setup_future_usage, SetupIntents). */
  reusable: boolean;
  /** The customer leaves the page to approve it (excluded by `allow_redirects: never`). */
  redirects: boolean;
  /** Reuse rests on a mandate the customer can revoke at their bank or wallet. */
  mandate: boolean;
}

/** The types the stand-in account has turned on; anything else is refused as Stripe refuses a type not activated. */
export const ACCOUNT_METHODS: Record<string, AccountMethod> = {
  card: { currencies: null, reusable: true, redirects: false, mandate: false },
  link: { currencies: null, reusable: true, redirects: false, mandate: false },
  sepa_debit: { currencies: ['eur'], reusable: true, redirects: false, mandate: true },
  us_bank_account: { currencies: ['usd'], reusable: true, redirects: false, mandate: true },
  paypal: {
    currencies: ['aud', 'cad', 'chf', 'czk', 'dkk', 'eur', 'gbp', 'nok', 'pln', 'sek', 'usd'],
    reusable: true,
    redirects: true,
    mandate: true,
  },
  // One that cannot be kept for later: a dynamic intent that saves the method must leave it out.
  eps: { currencies: ['eur'], reusable: false, redirects: true, mandate: false },
};

const notActivated = (type: string, param: string) =>
  invalidRequest(
    `The payment method type provided: ${type} is invalid. Please ensure the provided type is activated in your dashboard (https://dashboard.stripe.com/account/payments/settings) and your account is enabled for any preview features that you are trying to use. (The Stripe stand-in's account has ${Object.keys(ACCOUNT_METHODS).join(', ')}.)`,
    { param },
  );

/**
 * The types an intent offers, checked as Stripe checks them: `allowed_payment_method_types` or
 * `automatic_payment_methods`, not both; an allowed type must be activated, take the currency and, when
 * the method is to be kept (`setup_future_usage`, a SetupIntent), be reusable. Automatic: every activated
 * type that fits, which is how Stripe shows only reusable methods when the method is kept.
 */
export function intentMethodTypes(p: Obj, kind: 'payment_intent' | 'setup_intent'): string[] {
  const allowed = p.allowed_payment_method_types as string[] | undefined;
  if (allowed && p.automatic_payment_methods)
    throw invalidRequest(
      'You may only specify one of these parameters: allowed_payment_method_types, automatic_payment_methods.',
      { param: 'automatic_payment_methods' },
    );
  if (p.automatic_payment_methods && p.automatic_payment_methods.enabled === false)
    throw invalidRequest('automatic_payment_methods[enabled] must be true when automatic_payment_methods is given.', {
      param: 'automatic_payment_methods[enabled]',
    });
  const kept = kind === 'setup_intent' || p.setup_future_usage !== undefined;
  const currency: string | undefined = kind === 'payment_intent' ? p.currency : undefined;
  const fits = (m: AccountMethod) => !currency || !m.currencies || m.currencies.includes(currency);
  if (allowed) {
    allowed.forEach((type, i) => {
      const param = `allowed_payment_method_types[${i}]`;
      const method = ACCOUNT_METHODS[type];
      if (!method) throw notActivated(type, param);
      if (!fits(method))
        throw invalidRequest(
          `The currency provided (${currency}) is invalid for one or more payment method types on this PaymentIntent: ${type} supports only ${method.currencies!.join(', ')}.`,
          { param },
        );
      if (kept && !method.reusable)
        throw invalidRequest(
          kind === 'setup_intent'
            ? `The payment method type ${type} cannot be set up for future use with a SetupIntent.`
            : `The payment method type ${type} does not support setup_future_usage. Remove it from allowed_payment_method_types or do not set setup_future_usage.`,
          { param },
        );
    });
    return [...allowed];
  }
  const redirects = p.automatic_payment_methods?.allow_redirects !== 'never';
  return Object.entries(ACCOUNT_METHODS)
    .filter(([, m]) => fits(m) && (!kept || m.reusable) && (redirects || !m.redirects))
    .map(([type]) => type);
}

/** A PaymentMethod confirmed with an intent must be of a type the intent offers. */
export function checkMethodAllowed(intent: Obj, pm: Obj): void {
  const types: string[] = intent.payment_method_types ?? ['card'];
  if (types.includes(pm.type)) return;
  const name = intent.object === 'setup_intent' ? 'SetupIntent' : 'PaymentIntent';
  throw invalidRequest(
    `The PaymentMethod provided (${pm.type}) is not allowed for this ${name}. Please attach a PaymentMethod of one of the following types: ${types.join(', ')}. Alternatively, update the allowed payment method types for this ${name} to include "${pm.type}".`,
    { code: 'payment_intent_incompatible_payment_method', param: 'payment_method' },
  );
}

const FINGERPRINT_KEY = randomBytes(32);
const fingerprint = (text: string) =>
  createHmac('sha256', FINGERPRINT_KEY).update(text).digest('base64url').slice(0, 16);

/** An IBAN as banks check it: country, check digits, and the remainder 1 of mod 97. */
function checkIban(raw: string): string {
  const iban = raw.replace(/\s/g, '').toUpperCase();
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban) || rest !== 1)
    throw invalidRequest(`Invalid IBAN: ${raw}. The IBAN you provided is not valid.`, {
      code: 'invalid_bank_account_iban',
      param: 'sepa_debit[iban]',
    });
  return iban;
}

/** The parameters `POST /v1/payment_methods` takes for each type the stand-in creates beyond cards. */
export const OTHER_METHOD_PARAMS = {
  sepa_debit: { t: 'object', documented: ['iban'], props: { iban: { t: 'string' } }, required: ['iban'] },
  us_bank_account: {
    t: 'object',
    documented: [
      'account_holder_type',
      'account_number',
      'account_type',
      'financial_connections_account',
      'routing_number',
    ],
    props: {
      account_holder_type: { t: 'string', enum: ['company', 'individual'] },
      account_number: { t: 'string' },
      account_type: { t: 'string', enum: ['checking', 'savings'] },
      routing_number: { t: 'string' },
    },
    required: ['account_number', 'routing_number', 'account_holder_type'],
  },
  paypal: { t: 'object', documented: [], props: {} },
} as const;

/** The details of a PaymentMethod of `type` (not a card), from what `POST /v1/payment_methods` was given. */
export function otherMethodDetails(type: string, p: Obj): Obj {
  const billing = p.billing_details ?? {};
  const needName = () => {
    if (!billing.name) throw missingParam('billing_details[name]');
  };
  switch (type) {
    case 'sepa_debit': {
      if (!p.sepa_debit) throw missingParam('sepa_debit');
      needName();
      if (!billing.email) throw missingParam('billing_details[email]');
      const iban = checkIban(p.sepa_debit.iban);
      return {
        bank_code: iban.slice(4, 12),
        branch_code: '',
        country: iban.slice(0, 2),
        fingerprint: fingerprint(iban),
        generated_from: { charge: null, setup_attempt: null },
        last4: iban.slice(-4),
      };
    }
    case 'us_bank_account': {
      const a = p.us_bank_account;
      if (!a) throw missingParam('us_bank_account');
      needName();
      if (!/^\d{9}$/.test(a.routing_number))
        throw invalidRequest('Routing number must have 9 digits', { param: 'us_bank_account[routing_number]' });
      if (!/^\d{4,17}$/.test(a.account_number))
        throw invalidRequest('Invalid account number', { param: 'us_bank_account[account_number]' });
      return {
        account_holder_type: a.account_holder_type,
        account_type: a.account_type ?? 'checking',
        bank_name: 'STRIPE TEST BANK',
        financial_connections_account: null,
        fingerprint: fingerprint(a.routing_number + a.account_number),
        last4: a.account_number.slice(-4),
        networks: { preferred: 'ach', supported: ['ach'] },
        routing_number: a.routing_number,
        status_details: null,
      };
    }
    case 'paypal':
      return { country: null, payer_email: billing.email ?? null, payer_id: null };
    default:
      throw invalidRequest(`The Stripe stand-in cannot create PaymentMethods of type ${type} through the API.`, {
        param: 'type',
      });
  }
}

/**
 * The stand-in's own test PaymentMethod ids for what a browser alone can make (Stripe's `pm_card_…`
 * pattern): a card in Apple Pay or Google Pay, and Link. Each is a fresh PaymentMethod.
 */
export const WALLET_TEST_METHODS: Record<string, { number: string; wallet: string | null; type: 'card' | 'link' }> = {
  pm_card_visa_applePay: { number: '4242424242424242', wallet: 'apple_pay', type: 'card' },
  pm_card_mastercard_googlePay: { number: '5555555555554444', wallet: 'google_pay', type: 'card' },
  pm_link: { number: '4242424242424242', wallet: null, type: 'link' },
};

/** A card's `wallet` as Stripe writes it: its type, the device's last 4, and an empty hash named after the type. */
export const walletOf = (type: string, last4: string): Obj => ({
  dynamic_last4: String(Number(last4) + 1000).slice(-4),
  [type]: {},
  type,
});

/** Mandates: made when a method with one is kept for later; a bank action revokes one. */
export function makeMandate(store: Store, pm: Obj): Obj | undefined {
  if (!ACCOUNT_METHODS[pm.type]?.mandate) return undefined;
  const mandate: Obj = {
    id: newId('mandate'),
    object: 'mandate',
    customer_acceptance: {
      accepted_at: store.created(),
      online: { ip_address: '127.0.0.1', user_agent: 'stand-in' },
      type: 'online',
    },
    livemode: false,
    multi_use: {},
    on_behalf_of: null,
    payment_method: pm.id,
    payment_method_details: {
      type: pm.type,
      [pm.type]:
        pm.type === 'sepa_debit' ? { reference: newId('SEPA').toUpperCase(), url: 'https://stripe.com/mandate' } : {},
    },
    status: 'active',
    type: 'multi_use',
  };
  return store.put('mandates', mandate);
}

/** The customer revokes the mandate of a kept method at their bank or wallet: `mandate.updated`, now inactive. */
export function revokeMandate(store: Store, paymentMethodId: string): Obj {
  const mandate = store.all('mandates').find((m) => m.payment_method === paymentMethodId && m.status === 'active');
  if (!mandate) throw new Error(`PaymentMethod ${paymentMethodId} has no active mandate`);
  mandate.status = 'inactive';
  store.emit('mandate.updated', mandate, NO_REQUEST, { status: 'active' });
  return mandate;
}

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * A payment method domain as Stripe registers one: the name must be a host name (no scheme, port or
 * path); a second registration of a name the account has is refused. Apple Pay is active on a public
 * name; on anything else (localhost, an address) it stays inactive, saying why.
 */
export function newPaymentMethodDomain(store: Store, p: Obj): Obj {
  const name = String(p.domain_name).toLowerCase();
  if (!HOST_NAME.test(name))
    throw invalidRequest(
      `Invalid domain_name: ${p.domain_name}. Provide a domain name without the scheme, port or path, such as example.com.`,
      { param: 'domain_name' },
    );
  if (store.all('payment_method_domains').some((d) => d.domain_name === name))
    throw invalidRequest(`A payment method domain with domain_name ${name} already exists on this account.`, {
      code: 'resource_already_exists',
      param: 'domain_name',
    });
  const publicName = !/(^|\.)(localhost|local|test|example|invalid|internal)$/.test(name);
  const wallet = publicName
    ? { status: 'active' }
    : {
        status: 'inactive',
        status_details: { error_message: `${name} is not a public domain name; Apple Pay can only be offered on one.` },
      };
  const active = { status: 'active' };
  return store.put('payment_method_domains', {
    id: newId('pmd'),
    object: 'payment_method_domain',
    amazon_pay: active,
    apple_pay: wallet,
    created: store.created(),
    domain_name: name,
    enabled: p.enabled ?? true,
    google_pay: active,
    klarna: active,
    link: active,
    livemode: false,
    paypal: active,
  });
}
