import { balanceAndPayoutLists } from './balance-api.ts';
import { EXPAND, LIST, PAGINATION, inRange, listExpands, paginate } from './lists.ts';
import { invalidRequest, missingParam, unmodelledParam } from './errors.ts';
import { EVENT_TYPES } from './event-types.ts';
import { S, type EndpointSchema, type Schema } from './params.ts';
import { Payments, view, type KeyKind } from './payments.ts';
import { intentMethodTypes, newPaymentMethodDomain, OTHER_METHOD_PARAMS, otherMethodDetails } from './methods.ts';
import { API_VERSION, newId, randomToken, type Obj, type RequestInfo, type Store } from './store.ts';

/**
 * The endpoints the stand-in answers, each with the parameters Stripe documents for it (`documented`,
 * taken from the SDK's *Params types for API 2026-10-28) and the ones it models (`props`). A documented
 * parameter that is not modelled is refused with a message saying so; anything else is Stripe's
 * parameter_unknown.
 */
export interface Ctx {
  params: Record<string, any>;
  path: Record<string, string>;
  key: KeyKind;
  request: RequestInfo;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  pattern: RegExp;
  schema: EndpointSchema;
  /** May the publishable key call it (Stripe.js does)? `client_secret`: only with the intent's client secret. */
  publishable?: 'yes' | 'client_secret';
  /** Checks that need no state: a failure here is a validation error, which Stripe does not keep for an idempotency key. */
  check?: (ctx: Ctx) => void;
  handle: (ctx: Ctx) => Obj;
}

const BILLING_DETAILS: Schema = {
  t: 'object',
  documented: ['address', 'email', 'name', 'phone', 'tax_id'],
  props: {
    email: S.unsettableString,
    name: S.unsettableString,
    address: {
      t: 'object',
      documented: ['city', 'country', 'line1', 'line2', 'postal_code', 'state'],
      props: { postal_code: S.unsettableString, country: S.unsettableString },
      unsettable: true,
    },
  },
};
const AUTOMATIC_PAYMENT_METHODS: Schema = {
  t: 'object',
  props: { enabled: S.boolean, allow_redirects: S.enum('always', 'never') },
  required: ['enabled'],
};

const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));
/** Stripe's minimum charge amounts (https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts) for the usual currencies. */
const MINIMUM: Record<string, [number, string]> = {
  usd: [50, '$0.50'],
  eur: [50, '€0.50'],
  gbp: [30, '£0.30'],
  cad: [50, '$0.50'],
  aud: [50, '$0.50'],
  nzd: [50, '$0.50'],
  chf: [50, '0.50 Fr'],
  sgd: [50, '$0.50'],
  jpy: [50, '¥50'],
};

function checkAmountAndCurrency(p: Record<string, any>): void {
  if (p.currency !== undefined && (!/^[a-z]{3}$/.test(p.currency) || !CURRENCIES.has(p.currency)))
    throw invalidRequest(
      `Invalid currency: ${p.currency}. Stripe currently supports these currencies: see https://stripe.com/docs/currencies`,
      {
        param: 'currency',
      },
    );
  if (p.amount !== undefined && p.currency !== undefined) {
    const min = MINIMUM[p.currency];
    if (min && p.amount < min[0])
      throw invalidRequest(`Amount must be at least ${min[1]} ${p.currency}`, {
        code: 'amount_too_small',
        param: 'amount',
      });
    if (p.amount > 99999999)
      throw invalidRequest('Amount must be no more than 99999999', { code: 'amount_too_large', param: 'amount' });
  }
}

const onlyWithConfirm = (p: Record<string, any>, names: string[]) => {
  for (const name of names)
    if (p[name] !== undefined && p.confirm !== true)
      throw invalidRequest(`You can only pass \`${name}\` when \`confirm=true\`.`, { param: name });
};

function checkEmail(value: unknown, param: string) {
  if (typeof value === 'string' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
    throw invalidRequest(`Invalid email address: ${value}`, { param });
}

/** Merges metadata as Stripe does on update: an empty value removes the key, an empty `metadata` clears all. */
function mergeMetadata(current: Obj, update: Obj | null | undefined): Obj {
  if (update === undefined) return current;
  if (update === null) return {};
  const out = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}
const createMetadata = (m: Obj | null | undefined) =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => v !== ''));

/** Stripe's search query language, the part opentill needs: `field:'value'` and `metadata['key']:'value'` clauses joined by AND. */
function searchFilter(query: string): (pi: Obj) => boolean {
  if (/\sOR\s/.test(query))
    throw invalidRequest("The Stripe stand-in's search supports clauses joined by AND only.", { param: 'query' });
  const clauses = query.trim().split(/\s+AND\s+/);
  const tests = clauses.map((clause) => {
    const m = /^(-?)(metadata\[(['"])(.+?)\3\]|[a-z_]+)(:|>=|<=|>|<)\s*(?:'([^']*)'|"([^"]*)"|([^\s'"]+))$/.exec(
      clause.trim(),
    );
    if (!m)
      throw invalidRequest(
        `Invalid search query: ${query}. Search queries look like metadata['key']:'value' AND status:'succeeded'.`,
        { param: 'query' },
      );
    const [, negate, field, , metaKey, op, q1, q2, bare] = m;
    const wanted = q1 ?? q2 ?? bare ?? '';
    const get = (pi: Obj): unknown => {
      if (metaKey !== undefined) return pi.metadata[metaKey];
      if (['status', 'customer', 'currency', 'amount', 'created'].includes(field!)) return pi[field!];
      throw invalidRequest(`Field '${field}' is not supported by the Stripe stand-in's payment_intents search.`, {
        param: 'query',
      });
    };
    return (pi: Obj) => {
      const value = get(pi);
      let ok: boolean;
      if (op === ':') ok = value !== undefined && value !== null && String(value) === wanted;
      else {
        const n = Number(wanted);
        const v = Number(value);
        ok = op === '>' ? v > n : op === '<' ? v < n : op === '>=' ? v >= n : v <= n;
      }
      return negate ? !ok : ok;
    };
  });
  return (pi) => tests.every((t) => t(pi));
}

function clientSecretMatches(ctx: Ctx, intent: Obj): void {
  if (ctx.key !== 'publishable') return;
  if (ctx.params.client_secret === undefined) throw missingParam('client_secret');
  if (ctx.params.client_secret !== intent.client_secret)
    throw invalidRequest(
      `The client_secret provided does not match the client_secret associated with the ${intent.object === 'payment_intent' ? 'PaymentIntent' : 'SetupIntent'}.`,
      {
        param: 'client_secret',
      },
    );
}

const PI_EXPANDS = [
  'latest_charge',
  'latest_charge.balance_transaction',
  'payment_method',
  'customer',
  'latest_charge.customer',
];

export function buildRoutes(store: Store, payments: Payments, options: { rawCardDataWithSecretKey: boolean }): Route[] {
  const routes: Omit<Route, 'pattern'>[] = [];
  const route = (r: Omit<Route, 'pattern'>) => routes.push(r);
  const expanded = (ctx: Ctx, object: Obj, allowed: string[]) =>
    store.expand(
      view(object, ctx.key),
      ctx.params.expand ?? [],
      ctx.key === 'publishable' ? ['payment_method'] : allowed,
    );

  // ------------------------------------------------------------------ Account
  route({
    method: 'GET',
    path: '/v1/account',
    schema: { documented: ['expand'], props: EXPAND },
    handle: () => structuredClone(store.account),
  });

  // ------------------------------------------------------------------ Customers
  const customerDocumented = [
    'address',
    'balance',
    'business_name',
    'cash_balance',
    'description',
    'email',
    'expand',
    'individual_name',
    'invoice_prefix',
    'invoice_settings',
    'metadata',
    'name',
    'next_invoice_sequence',
    'payment_method',
    'phone',
    'preferred_locales',
    'shipping',
    'source',
    'tax',
    'tax_exempt',
    'tax_id_data',
    'test_clock',
    'validate',
  ];
  const CUSTOMER_EXPANDS = ['invoice_settings.default_payment_method'];
  route({
    method: 'POST',
    path: '/v1/customers',
    schema: {
      documented: customerDocumented,
      props: { email: S.string, name: S.string, description: S.string, metadata: S.metadata, expand: S.expand },
    },
    check: (ctx) => checkEmail(ctx.params.email, 'email'),
    handle: (ctx) => {
      const p = ctx.params;
      const customer = store.put('customers', {
        id: newId('cus'),
        object: 'customer',
        address: null,
        balance: 0,
        created: store.created(),
        currency: null,
        customer_account: null,
        default_source: null,
        delinquent: false,
        description: p.description ?? null,
        discount: null,
        email: p.email ?? null,
        invoice_prefix: randomToken(8).toUpperCase(),
        invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
        livemode: false,
        metadata: createMetadata(p.metadata),
        name: p.name ?? null,
        next_invoice_sequence: 1,
        phone: null,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
        test_clock: null,
      });
      store.emit('customer.created', customer, ctx.request);
      return expanded(ctx, customer, CUSTOMER_EXPANDS);
    },
  });
  route({
    method: 'GET',
    path: '/v1/customers/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, store.get('customers', ctx.path.id!), CUSTOMER_EXPANDS),
  });
  route({
    method: 'POST',
    path: '/v1/customers/:id',
    schema: {
      documented: customerDocumented
        .filter((d) => !['payment_method', 'tax_id_data', 'test_clock'].includes(d))
        .concat('default_source'),
      props: {
        email: S.unsettableString,
        name: S.unsettableString,
        description: S.unsettableString,
        metadata: S.metadata,
        expand: S.expand,
        invoice_settings: {
          t: 'object',
          documented: ['custom_fields', 'default_payment_method', 'footer', 'rendering_options'],
          props: { default_payment_method: S.unsettableString },
        },
      },
    },
    check: (ctx) => checkEmail(ctx.params.email, 'email'),
    handle: (ctx) => {
      const customer = store.get('customers', ctx.path.id!);
      const p = ctx.params;
      const previous: Obj = {};
      const set = (field: string, value: unknown) => {
        if (value === undefined || JSON.stringify(customer[field]) === JSON.stringify(value)) return;
        previous[field] = structuredClone(customer[field]);
        customer[field] = value;
      };
      const defaultPm = p.invoice_settings?.default_payment_method;
      if (typeof defaultPm === 'string') {
        const pm = store.find('payment_methods', defaultPm);
        if (!pm || pm.customer !== customer.id)
          throw invalidRequest(
            `The customer does not have a payment method with the ID ${defaultPm}. The payment method must be attached to the customer.`,
            {
              code: 'resource_missing',
              param: 'invoice_settings[default_payment_method]',
            },
          );
      }
      set('email', p.email);
      set('name', p.name);
      set('description', p.description);
      set('metadata', mergeMetadata(customer.metadata, p.metadata));
      if (defaultPm !== undefined)
        set('invoice_settings', { ...customer.invoice_settings, default_payment_method: defaultPm });
      if (Object.keys(previous).length > 0) store.emit('customer.updated', customer, ctx.request, previous);
      return expanded(ctx, customer, CUSTOMER_EXPANDS);
    },
  });

  // ------------------------------------------------------------------ PaymentMethods
  // prettier-ignore
  const pmCreateDocumented = [
    'acss_debit', 'affirm', 'afterpay_clearpay', 'alipay', 'allow_redisplay', 'alma', 'amazon_pay', 'au_becs_debit', 'bacs_debit', 'bancontact', 'billie',
    'billing_details', 'bizum', 'blik', 'boleto', 'card', 'cashapp', 'crypto', 'custom', 'customer', 'customer_balance', 'eps', 'expand', 'fpx', 'giropay',
    'grabpay', 'ideal', 'interac_present', 'kakao_pay', 'klarna', 'konbini', 'kr_card', 'link', 'mb_way', 'metadata', 'mobilepay', 'multibanco', 'naver_pay',
    'nz_bank_account', 'oxxo', 'p24', 'pay_by_bank', 'payco', 'payment_method', 'paynow', 'paypal', 'paypay', 'payto', 'pix', 'promptpay', 'radar_options',
    'revolut_pay', 'samsung_pay', 'satispay', 'scalapay', 'sepa_debit', 'sequra', 'sofort', 'sunbit', 'swish', 'twint', 'type', 'upi', 'us_bank_account',
    'wechat_pay', 'zip',
  ];
  route({
    method: 'POST',
    path: '/v1/payment_methods',
    publishable: 'yes',
    schema: {
      documented: pmCreateDocumented,
      props: {
        type: S.enum('card', 'sepa_debit', 'us_bank_account', 'paypal'),
        sepa_debit: OTHER_METHOD_PARAMS.sepa_debit as Schema,
        us_bank_account: OTHER_METHOD_PARAMS.us_bank_account as Schema,
        paypal: OTHER_METHOD_PARAMS.paypal as Schema,
        card: {
          t: 'object',
          documented: ['cvc', 'exp_month', 'exp_year', 'networks', 'number', 'token'],
          props: { number: S.string, exp_month: { t: 'integer' }, exp_year: { t: 'integer' }, cvc: S.string },
        },
        billing_details: BILLING_DETAILS,
        metadata: S.metadata,
        expand: S.expand,
      },
      required: ['type'],
    },
    check: (ctx) => {
      for (const type of ['card', 'sepa_debit', 'us_bank_account', 'paypal'])
        if (ctx.params[type] !== undefined && ctx.params.type !== type)
          throw invalidRequest(`You passed ${type} but the PaymentMethod's type is ${ctx.params.type}.`, {
            param: type,
          });
      checkEmail(ctx.params.billing_details?.email, 'billing_details[email]');
      if (ctx.params.type !== 'card') return;
      if (ctx.params.card === undefined) throw missingParam('card');
      if (ctx.key === 'secret' && !options.rawCardDataWithSecretKey)
        throw invalidRequest(
          'Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable testing raw card data APIs, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.',
        );
      checkEmail(ctx.params.billing_details?.email, 'billing_details[email]');
    },
    handle: (ctx) => {
      const p = ctx.params;
      if (p.type !== 'card')
        return expanded(
          ctx,
          payments.createOtherPaymentMethod(
            p.type,
            otherMethodDetails(p.type, p),
            p.billing_details ?? null,
            createMetadata(p.metadata),
          ),
          ['customer'],
        );
      const checked = payments.checkCard(p.card);
      return expanded(
        ctx,
        payments.createCardPaymentMethod(checked, p.billing_details ?? null, createMetadata(p.metadata)),
        ['customer'],
      );
    },
  });
  route({
    method: 'GET',
    path: '/v1/payment_methods/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, store.get('payment_methods', ctx.path.id!), ['customer']),
  });
  route({
    method: 'POST',
    path: '/v1/payment_methods/:id/attach',
    schema: {
      documented: ['customer', 'customer_account', 'expand'],
      props: { customer: S.id, expand: S.expand },
      required: ['customer'],
    },
    handle: (ctx) => {
      const pm = payments.resolvePaymentMethod(ctx.path.id!, 'payment_method');
      return expanded(ctx, payments.attach(pm, ctx.params.customer, ctx.request), ['customer']);
    },
  });
  route({
    method: 'POST',
    path: '/v1/payment_methods/:id/detach',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, payments.detach(store.get('payment_methods', ctx.path.id!), ctx.request), []),
  });

  // ------------------------------------------------------------------ PaymentIntents
  route({
    method: 'POST',
    path: '/v1/payment_intents',
    schema: {
      // prettier-ignore
      documented: [
        'amount', 'currency', 'allowed_payment_method_types', 'amount_details', 'application_fee_amount', 'automatic_payment_methods', 'capture_method',
        'confirm', 'confirmation_method', 'confirmation_token', 'customer', 'customer_account', 'description', 'error_on_requires_action',
        'excluded_payment_method_types', 'expand', 'hooks', 'mandate', 'mandate_data', 'metadata', 'off_session', 'on_behalf_of', 'payment_details',
        'payment_method', 'payment_method_configuration', 'payment_method_data', 'payment_method_options', 'radar_options', 'receipt_email', 'return_url',
        'setup_future_usage', 'shipping', 'statement_descriptor', 'statement_descriptor_suffix', 'transfer_data', 'transfer_group', 'use_stripe_sdk',
      ],
      props: {
        amount: { t: 'integer', min: 1 },
        currency: { t: 'string', lower: true },
        customer: S.id,
        payment_method: S.id,
        allowed_payment_method_types: { t: 'array', of: S.string },
        automatic_payment_methods: AUTOMATIC_PAYMENT_METHODS,
        setup_future_usage: S.enum('off_session', 'on_session'),
        off_session: S.boolean,
        confirm: S.boolean,
        error_on_requires_action: S.boolean,
        description: { t: 'string', max: 1000 },
        receipt_email: S.string,
        statement_descriptor_suffix: { t: 'string', max: 22 },
        metadata: S.metadata,
        return_url: S.string,
        expand: S.expand,
      },
      required: ['amount', 'currency'],
    },
    check: (ctx) => {
      const p = ctx.params;
      checkAmountAndCurrency(p);
      intentMethodTypes(p, 'payment_intent');
      checkEmail(p.receipt_email, 'receipt_email');
      onlyWithConfirm(p, ['off_session', 'error_on_requires_action', 'return_url']);
    },
    handle: (ctx) => {
      const p = ctx.params;
      if (p.customer) store.get('customers', p.customer, 'customer');
      let pm: Obj | undefined;
      if (p.payment_method) {
        pm = payments.resolvePaymentMethod(p.payment_method, 'payment_method');
        payments.checkUsable(pm, p.customer ?? null);
      }
      const pi = store.put(
        'payment_intents',
        payments.newPaymentIntent({
          ...p,
          payment_method_types: intentMethodTypes(p, 'payment_intent'),
          payment_method: pm?.id,
          metadata: createMetadata(p.metadata),
          automatic_payment_methods:
            p.allowed_payment_method_types && !p.automatic_payment_methods
              ? null
              : { allow_redirects: p.automatic_payment_methods?.allow_redirects ?? 'always', enabled: true },
        }),
      );
      store.emit('payment_intent.created', pi, ctx.request);
      if (p.confirm)
        payments.confirmPaymentIntent(
          pi,
          {
            key: ctx.key,
            offSession: p.off_session,
            returnUrl: p.return_url,
            errorOnRequiresAction: p.error_on_requires_action,
          },
          ctx.request,
        );
      return expanded(ctx, pi, PI_EXPANDS);
    },
  });
  route({
    method: 'GET',
    path: '/v1/payment_intents/search',
    schema: {
      documented: ['query', 'expand', 'limit', 'page'],
      props: { query: S.string, limit: S.limit, page: S.string, expand: S.expand },
      required: ['query'],
    },
    handle: (ctx) => {
      const p = ctx.params;
      const filter = searchFilter(p.query);
      const limit = p.limit ?? 10;
      if (limit > 100)
        throw invalidRequest('This value must be less than or equal to 100.', {
          code: 'parameter_invalid_integer',
          param: 'limit',
        });
      const offset = p.page ? Number(Buffer.from(p.page, 'base64url').toString()) : 0;
      if (!Number.isInteger(offset) || offset < 0) throw invalidRequest('Invalid page.', { param: 'page' });
      const matches = store.all('payment_intents').filter(filter);
      const data = matches.slice(offset, offset + limit);
      const hasMore = offset + limit < matches.length;
      const result = {
        object: 'search_result',
        data,
        has_more: hasMore,
        next_page: hasMore ? Buffer.from(String(offset + limit)).toString('base64url') : null,
        url: '/v1/payment_intents/search',
      };
      return store.expand(result, p.expand ?? [], listExpands(PI_EXPANDS));
    },
  });
  route({
    method: 'GET',
    path: '/v1/payment_intents',
    schema: {
      documented: ['created', 'customer', 'customer_account', 'expand', ...PAGINATION],
      props: { ...LIST, customer: S.id, created: { t: 'range' } },
    },
    handle: (ctx) => {
      const p = ctx.params;
      const items = store
        .all('payment_intents')
        .filter((pi) => (!p.customer || pi.customer === p.customer) && inRange(pi.created, p.created));
      return store.expand(paginate(items, p, '/v1/payment_intents'), p.expand ?? [], listExpands(PI_EXPANDS));
    },
  });
  route({
    method: 'GET',
    path: '/v1/payment_intents/:id',
    publishable: 'client_secret',
    schema: { documented: ['client_secret', 'expand'], props: { client_secret: S.string, expand: S.expand } },
    handle: (ctx) => {
      const pi = store.get('payment_intents', ctx.path.id!, 'intent');
      clientSecretMatches(ctx, pi);
      return expanded(ctx, pi, PI_EXPANDS);
    },
  });
  route({
    method: 'POST',
    path: '/v1/payment_intents/:id',
    schema: {
      // prettier-ignore
      documented: [
        'allowed_payment_method_types', 'amount', 'amount_details', 'application_fee_amount', 'capture_method', 'currency', 'customer', 'customer_account',
        'description', 'excluded_payment_method_types', 'expand', 'hooks', 'metadata', 'payment_details', 'payment_method', 'payment_method_configuration',
        'payment_method_data', 'payment_method_options', 'receipt_email', 'setup_future_usage', 'shipping', 'statement_descriptor', 'statement_descriptor_suffix',
        'transfer_data', 'transfer_group',
      ],
      props: {
        amount: { t: 'integer', min: 1 },
        currency: { t: 'string', lower: true },
        customer: S.id,
        description: { t: 'string', max: 1000, unsettable: true },
        metadata: S.metadata,
        payment_method: S.id,
        receipt_email: S.unsettableString,
        setup_future_usage: { t: 'string', enum: ['off_session', 'on_session'], unsettable: true },
        statement_descriptor_suffix: { t: 'string', max: 22, unsettable: true },
        expand: S.expand,
      },
    },
    check: (ctx) => checkEmail(ctx.params.receipt_email, 'receipt_email'),
    handle: (ctx) => {
      const pi = store.get('payment_intents', ctx.path.id!, 'intent');
      const p = ctx.params;
      checkAmountAndCurrency({ amount: p.amount ?? pi.amount, currency: p.currency ?? pi.currency });
      const editable = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
      const moneyFields = [
        'amount',
        'currency',
        'customer',
        'payment_method',
        'setup_future_usage',
        'statement_descriptor_suffix',
      ].filter((f) => p[f] !== undefined);
      if (moneyFields.length > 0 && !editable.includes(pi.status))
        throw invalidRequest(
          `This PaymentIntent's ${moneyFields[0]} could not be updated because it has a status of ${pi.status}. You may only update the ${moneyFields[0]} of a PaymentIntent with one of the following statuses: ${editable.join(', ')}.`,
          { code: 'payment_intent_unexpected_state', param: moneyFields[0], payment_intent: view(pi, 'secret') },
        );
      if (p.customer) store.get('customers', p.customer, 'customer');
      let pm: Obj | undefined;
      if (p.payment_method) {
        pm = payments.resolvePaymentMethod(p.payment_method, 'payment_method');
        payments.checkUsable(pm, p.customer ?? pi.customer);
      }
      if (p.amount !== undefined) pi.amount = p.amount;
      if (p.currency !== undefined) pi.currency = p.currency;
      if (p.customer !== undefined) pi.customer = p.customer;
      if (p.description !== undefined) pi.description = p.description;
      if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email;
      if (p.setup_future_usage !== undefined) pi.setup_future_usage = p.setup_future_usage;
      if (p.statement_descriptor_suffix !== undefined) pi.statement_descriptor_suffix = p.statement_descriptor_suffix;
      pi.metadata = mergeMetadata(pi.metadata, p.metadata);
      if (pm) pi.payment_method = pm.id;
      if (moneyFields.length > 0) {
        for (const [token, challenge] of store.challenges) if (challenge.id === pi.id) store.challenges.delete(token);
        pi.next_action = null;
        pi.status = pi.payment_method ? 'requires_confirmation' : 'requires_payment_method';
      }
      return expanded(ctx, pi, PI_EXPANDS);
    },
  });
  route({
    method: 'POST',
    path: '/v1/payment_intents/:id/confirm',
    publishable: 'client_secret',
    schema: {
      // prettier-ignore
      documented: [
        'allowed_payment_method_types', 'amount_details', 'amount_to_confirm', 'capture_method', 'confirmation_token', 'error_on_requires_action',
        'excluded_payment_method_types', 'expand', 'hooks', 'mandate', 'mandate_data', 'off_session', 'payment_details', 'payment_method', 'payment_method_data',
        'payment_method_options', 'radar_options', 'receipt_email', 'return_url', 'setup_future_usage', 'shipping', 'use_stripe_sdk',
      ],
      props: {
        payment_method: S.id,
        return_url: S.string,
        off_session: S.boolean,
        error_on_requires_action: S.boolean,
        client_secret: S.string,
        use_stripe_sdk: S.boolean,
        expand: S.expand,
      },
    },
    handle: (ctx) => {
      const pi = store.get('payment_intents', ctx.path.id!, 'intent');
      clientSecretMatches(ctx, pi);
      const p = ctx.params;
      if (p.payment_method) {
        const pm = payments.resolvePaymentMethod(p.payment_method, 'payment_method');
        payments.checkUsable(pm, pi.customer);
        if (['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status))
          pi.payment_method = pm.id;
      }
      payments.confirmPaymentIntent(
        pi,
        {
          key: ctx.key,
          offSession: p.off_session,
          returnUrl: p.return_url,
          useStripeSdk: p.use_stripe_sdk,
          errorOnRequiresAction: p.error_on_requires_action,
        },
        ctx.request,
      );
      return expanded(ctx, pi, PI_EXPANDS);
    },
  });
  route({
    method: 'POST',
    path: '/v1/payment_intents/:id/cancel',
    schema: {
      documented: ['cancellation_reason', 'expand'],
      props: {
        cancellation_reason: S.enum('duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'),
        expand: S.expand,
      },
    },
    handle: (ctx) => {
      const pi = store.get('payment_intents', ctx.path.id!, 'intent');
      return expanded(
        ctx,
        payments.cancelPaymentIntent(pi, ctx.params.cancellation_reason ?? null, ctx.key, ctx.request),
        PI_EXPANDS,
      );
    },
  });

  // ------------------------------------------------------------------ SetupIntents
  const SI_EXPANDS = ['payment_method', 'customer'];
  route({
    method: 'POST',
    path: '/v1/setup_intents',
    schema: {
      // prettier-ignore
      documented: [
        'allowed_payment_method_types', 'attach_to_self', 'automatic_payment_methods', 'confirm', 'confirmation_token', 'customer', 'customer_account',
        'description', 'excluded_payment_method_types', 'expand', 'flow_directions', 'mandate_data', 'metadata', 'on_behalf_of', 'payment_method',
        'payment_method_configuration', 'payment_method_data', 'payment_method_options', 'return_url', 'single_use', 'usage', 'use_stripe_sdk',
      ],
      props: {
        customer: S.id,
        payment_method: S.id,
        allowed_payment_method_types: { t: 'array', of: S.string },
        automatic_payment_methods: AUTOMATIC_PAYMENT_METHODS,
        usage: S.enum('off_session', 'on_session'),
        confirm: S.boolean,
        metadata: S.metadata,
        description: { t: 'string', max: 1000 },
        return_url: S.string,
        expand: S.expand,
      },
    },
    check: (ctx) => {
      intentMethodTypes(ctx.params, 'setup_intent');
      onlyWithConfirm(ctx.params, ['return_url']);
    },
    handle: (ctx) => {
      const p = ctx.params;
      if (p.customer) store.get('customers', p.customer, 'customer');
      let pm: Obj | undefined;
      if (p.payment_method) {
        pm = payments.resolvePaymentMethod(p.payment_method, 'payment_method');
        payments.checkUsable(pm, p.customer ?? null);
      }
      const si = store.put(
        'setup_intents',
        payments.newSetupIntent({
          ...p,
          payment_method_types: intentMethodTypes(p, 'setup_intent'),
          payment_method: pm?.id,
          metadata: createMetadata(p.metadata),
          automatic_payment_methods:
            p.allowed_payment_method_types && !p.automatic_payment_methods
              ? null
              : { allow_redirects: p.automatic_payment_methods?.allow_redirects ?? 'always', enabled: true },
        }),
      );
      store.emit('setup_intent.created', si, ctx.request);
      if (p.confirm) payments.confirmSetupIntent(si, { key: ctx.key, returnUrl: p.return_url }, ctx.request);
      return expanded(ctx, si, SI_EXPANDS);
    },
  });
  route({
    method: 'GET',
    path: '/v1/setup_intents/:id',
    publishable: 'client_secret',
    schema: { documented: ['client_secret', 'expand'], props: { client_secret: S.string, expand: S.expand } },
    handle: (ctx) => {
      const si = store.get('setup_intents', ctx.path.id!, 'intent');
      clientSecretMatches(ctx, si);
      return expanded(ctx, si, SI_EXPANDS);
    },
  });
  route({
    method: 'POST',
    path: '/v1/setup_intents/:id/confirm',
    publishable: 'client_secret',
    schema: {
      // prettier-ignore
      documented: [
        'allowed_payment_method_types', 'confirmation_token', 'expand', 'mandate_data', 'payment_method', 'payment_method_data', 'payment_method_options',
        'return_url', 'use_stripe_sdk',
      ],
      props: {
        payment_method: S.id,
        client_secret: S.string,
        return_url: S.string,
        use_stripe_sdk: S.boolean,
        expand: S.expand,
      },
    },
    handle: (ctx) => {
      const si = store.get('setup_intents', ctx.path.id!, 'intent');
      clientSecretMatches(ctx, si);
      const p = ctx.params;
      if (p.payment_method) {
        const pm = payments.resolvePaymentMethod(p.payment_method, 'payment_method');
        payments.checkUsable(pm, si.customer);
        if (['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status))
          si.payment_method = pm.id;
      }
      payments.confirmSetupIntent(
        si,
        { key: ctx.key, returnUrl: p.return_url, useStripeSdk: p.use_stripe_sdk },
        ctx.request,
      );
      return expanded(ctx, si, SI_EXPANDS);
    },
  });
  route({
    method: 'POST',
    path: '/v1/setup_intents/:id/cancel',
    schema: {
      documented: ['cancellation_reason', 'expand'],
      props: { cancellation_reason: S.enum('abandoned', 'duplicate', 'requested_by_customer'), expand: S.expand },
    },
    handle: (ctx) => {
      const si = store.get('setup_intents', ctx.path.id!, 'intent');
      return expanded(
        ctx,
        payments.cancelSetupIntent(si, ctx.params.cancellation_reason ?? null, ctx.key, ctx.request),
        SI_EXPANDS,
      );
    },
  });

  // ------------------------------------------------------------------ Charges, balance transactions, disputes
  route({
    method: 'GET',
    path: '/v1/charges/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) =>
      expanded(ctx, store.get('charges', ctx.path.id!, 'charge'), [
        'balance_transaction',
        'customer',
        'payment_intent',
        'payment_method',
      ]),
  });
  route({
    method: 'GET',
    path: '/v1/balance_transactions/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, store.get('balance_transactions', ctx.path.id!), ['source']),
  });
  balanceAndPayoutLists(store, route);
  /** `GET /v1/{collection}`: Stripe's list of refunds or disputes, by charge, payment intent and creation time. */
  function listByPayment(collection: 'refunds' | 'disputes', expands: string[]) {
    route({
      method: 'GET',
      path: `/v1/${collection}`,
      schema: {
        documented: ['charge', 'created', 'expand', 'payment_intent', ...PAGINATION],
        props: { ...LIST, charge: S.id, payment_intent: S.id, created: { t: 'range' } },
      },
      handle: (ctx) => {
        const p = ctx.params;
        const items = store
          .all(collection)
          .filter(
            (o) =>
              (!p.charge || o.charge === p.charge) &&
              (!p.payment_intent || o.payment_intent === p.payment_intent) &&
              inRange(o.created, p.created),
          );
        return store.expand(paginate(items, p, `/v1/${collection}`), p.expand ?? [], listExpands(expands));
      },
    });
  }
  route({
    method: 'GET',
    path: '/v1/disputes/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, store.get('disputes', ctx.path.id!, 'dispute'), ['charge', 'payment_intent']),
  });
  listByPayment('disputes', ['charge', 'payment_intent']);

  // ------------------------------------------------------------------ Refunds
  const REFUND_EXPANDS = ['balance_transaction', 'charge', 'payment_intent'];
  route({
    method: 'POST',
    path: '/v1/refunds',
    schema: {
      // prettier-ignore
      documented: [
        'amount', 'charge', 'currency', 'customer', 'expand', 'instructions_email', 'metadata', 'origin', 'payment_intent', 'reason', 'refund_application_fee',
        'reverse_transfer',
      ],
      props: {
        payment_intent: S.id,
        charge: S.id,
        amount: { t: 'integer', min: 1 },
        reason: S.enum('duplicate', 'fraudulent', 'requested_by_customer'),
        metadata: S.metadata,
        expand: S.expand,
      },
    },
    check: (ctx) => {
      if (!ctx.params.payment_intent && !ctx.params.charge)
        throw invalidRequest(
          'One of the following params should be provided for this request: payment_intent or charge.',
          { code: 'parameter_missing' },
        );
    },
    handle: (ctx) => {
      const p = ctx.params;
      const refund = payments.refund({ ...p, metadata: createMetadata(p.metadata) }, ctx.request);
      return expanded(ctx, refund, REFUND_EXPANDS);
    },
  });
  route({
    method: 'GET',
    path: '/v1/refunds/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => expanded(ctx, store.get('refunds', ctx.path.id!, 'refund'), REFUND_EXPANDS),
  });
  listByPayment('refunds', REFUND_EXPANDS);

  // ------------------------------------------------------------------ Events
  route({
    method: 'GET',
    path: '/v1/events/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => structuredClone(store.get('events', ctx.path.id!)),
  });
  route({
    method: 'GET',
    path: '/v1/events',
    schema: {
      documented: ['created', 'delivery_success', 'expand', 'type', 'types', ...PAGINATION],
      props: { ...LIST, type: S.string, types: { t: 'array', of: S.string }, created: { t: 'range' } },
    },
    check: (ctx) => {
      if (ctx.params.type && ctx.params.types)
        throw invalidRequest('You may only specify one of these parameters: type, types.', { param: 'types' });
    },
    handle: (ctx) => {
      const p = ctx.params;
      const matches = (type: string, pattern: string) =>
        pattern.endsWith('.*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
      const items = store
        .all('events')
        .filter(
          (e) =>
            (!p.type || matches(e.type, p.type)) &&
            (!p.types || (p.types as string[]).some((t) => matches(e.type, t))) &&
            inRange(e.created, p.created),
        );
      return paginate(items, p, '/v1/events');
    },
  });

  // ------------------------------------------------------------------ Webhook endpoints
  const endpointProps: Record<string, Schema> = {
    url: S.string,
    enabled_events: { t: 'array', of: S.string },
    description: S.unsettableString,
    metadata: S.metadata,
    expand: S.expand,
  };
  const checkEndpoint = (ctx: Ctx) => {
    const p = ctx.params;
    if (p.url !== undefined) {
      let url: URL;
      try {
        url = new URL(p.url);
      } catch {
        throw invalidRequest(`Invalid URL: ${p.url}`, { param: 'url' });
      }
      if (!['http:', 'https:'].includes(url.protocol)) throw invalidRequest(`Invalid URL: ${p.url}`, { param: 'url' });
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && !url.hostname.startsWith('127.'))
        throw invalidRequest(
          `Invalid URL: ${p.url}. The Stripe stand-in delivers webhooks to loopback addresses only.`,
          { param: 'url' },
        );
    }
    for (const [i, type] of ((p.enabled_events as string[] | undefined) ?? []).entries())
      if (type !== '*' && !EVENT_TYPES.has(type))
        throw invalidRequest(`Invalid enabled_events[${i}]: ${type} is not an event type Stripe sends`, {
          param: `enabled_events[${i}]`,
        });
    if (p.enabled_events && p.enabled_events.length === 0)
      throw invalidRequest('enabled_events must contain at least one event type', { param: 'enabled_events' });
  };
  const withoutSecret = (we: Obj) => {
    const copy = structuredClone(we);
    delete copy.secret;
    return copy;
  };
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints',
    schema: {
      documented: ['enabled_events', 'url', 'api_version', 'connect', 'description', 'expand', 'metadata'],
      props: { ...endpointProps, api_version: S.string },
      required: ['url', 'enabled_events'],
    },
    check: (ctx) => {
      checkEndpoint(ctx);
      if (ctx.params.api_version !== undefined && ctx.params.api_version !== API_VERSION)
        throw unmodelledParam(
          `api_version (the stand-in sends events in ${API_VERSION} only, not ${ctx.params.api_version})`,
        );
    },
    handle: (ctx) => {
      const p = ctx.params;
      const we = store.put('webhook_endpoints', {
        id: newId('we'),
        object: 'webhook_endpoint',
        api_version: p.api_version ?? null,
        application: null,
        created: store.created(),
        description: p.description ?? null,
        enabled_events: p.enabled_events,
        livemode: false,
        metadata: createMetadata(p.metadata),
        secret: `whsec_${randomToken(32)}`,
        status: 'enabled',
        url: p.url,
      });
      return structuredClone(we);
    },
  });
  route({
    method: 'GET',
    path: '/v1/webhook_endpoints',
    schema: { documented: ['expand', ...PAGINATION], props: LIST },
    handle: (ctx) => paginate(store.all('webhook_endpoints').map(withoutSecret), ctx.params, '/v1/webhook_endpoints'),
  });
  route({
    method: 'GET',
    path: '/v1/webhook_endpoints/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => withoutSecret(store.get('webhook_endpoints', ctx.path.id!)),
  });
  route({
    method: 'POST',
    path: '/v1/webhook_endpoints/:id',
    schema: {
      documented: ['description', 'disabled', 'enabled_events', 'expand', 'metadata', 'url'],
      props: { ...endpointProps, disabled: S.boolean },
    },
    check: checkEndpoint,
    handle: (ctx) => {
      const we = store.get('webhook_endpoints', ctx.path.id!);
      const p = ctx.params;
      if (p.url !== undefined) we.url = p.url;
      if (p.enabled_events !== undefined) we.enabled_events = p.enabled_events;
      if (p.description !== undefined) we.description = p.description;
      if (p.disabled !== undefined) we.status = p.disabled ? 'disabled' : 'enabled';
      we.metadata = mergeMetadata(we.metadata, p.metadata);
      return withoutSecret(we);
    },
  });
  route({
    method: 'DELETE',
    path: '/v1/webhook_endpoints/:id',
    schema: { documented: [], props: {} },
    handle: (ctx) => {
      const we = store.get('webhook_endpoints', ctx.path.id!);
      store.collections.get('webhook_endpoints')!.delete(we.id);
      return { id: we.id, object: 'webhook_endpoint', deleted: true };
    },
  });

  // ------------------------------------------------------------------ Payment method domains
  const PMD_DOCUMENTED = ['domain_name', 'enabled', 'expand'];
  route({
    method: 'POST',
    path: '/v1/payment_method_domains',
    schema: {
      documented: PMD_DOCUMENTED,
      props: { domain_name: S.string, enabled: S.boolean, expand: S.expand },
      required: ['domain_name'],
    },
    handle: (ctx) => newPaymentMethodDomain(store, ctx.params),
  });
  route({
    method: 'GET',
    path: '/v1/payment_method_domains',
    schema: {
      documented: ['domain_name', 'enabled', 'ending_before', 'expand', 'limit', 'starting_after'],
      props: { domain_name: S.string, enabled: S.boolean, ...LIST },
    },
    handle: (ctx) =>
      paginate(
        store
          .all('payment_method_domains')
          .filter(
            (d) =>
              (ctx.params.domain_name === undefined || d.domain_name === ctx.params.domain_name) &&
              (ctx.params.enabled === undefined || d.enabled === ctx.params.enabled),
          ),
        ctx.params,
        '/v1/payment_method_domains',
      ),
  });
  route({
    method: 'GET',
    path: '/v1/payment_method_domains/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => store.get('payment_method_domains', ctx.path.id!),
  });
  route({
    method: 'POST',
    path: '/v1/payment_method_domains/:id',
    schema: { documented: ['enabled', 'expand'], props: { enabled: S.boolean, expand: S.expand } },
    handle: (ctx) => {
      const domain = store.get('payment_method_domains', ctx.path.id!);
      if (ctx.params.enabled !== undefined) domain.enabled = ctx.params.enabled;
      return domain;
    },
  });

  // ------------------------------------------------------------------ Mandates
  route({
    method: 'GET',
    path: '/v1/mandates/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) => store.get('mandates', ctx.path.id!, 'mandate'),
  });

  return routes.map((r) => ({ ...r, pattern: new RegExp(`^${r.path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`) }));
}
