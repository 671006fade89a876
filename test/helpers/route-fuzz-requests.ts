import fc from 'fast-check';
import type { RawRequest, Route } from './route-fuzz.ts';

/**
 * The route fuzz test's requests: aimed at one route of the app, with path parameters, query, body
 * and headers drawn mostly from junk, sometimes from values that exist (ids, e-mails, hosted-page
 * tokens, a signed-in panel's cookie and anti-forgery token), so that hostile input also reaches
 * the code behind authentication. A value that exists appears as `{{name}}` and is filled in when
 * the request is sent, from the world as it is then (a session can end between two requests).
 */

/** Names of existing values to their current value; the test keeps it up to date. */
export type World = Map<string, string>;

export type Body =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: [string, string][] }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: number[] };

export interface FuzzCase {
  route: Route;
  method: string;
  /** One value per path parameter (and wildcard) of the route, as it goes into the path. */
  params: string[];
  /** Appended to the path: nothing, a trailing slash, or more segments. */
  tail: string;
  query: string;
  body: Body | null;
  /** Mostly the type that fits the body, sometimes another or none. */
  contentType: string | null;
  headers: Record<string, string>;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const FORM_FIELDS = [
  'csrf', 'formToken', 'action', 'transactionId', 'token', 'email', 'firstName', 'lastName', 'zipCode', 'payload', 'coupon', 'appliedCoupon',
  'country', 'cardNumber', 'cardExpiry', 'cardCvc', 'expectedTotal', 'expectedCurrency', 'version', 'assignEmail', 'id', 'name', 'type',
  'frequency', 'trialDays', 'licences', 'prices', 'productId', 'code', 'off', 'expiresAt', 'allowConversion', 'adminFrameOrigins', 'company',
  'password', 'q', 'kind', 'senderName', 'replyTo', 'send_RECEIPT', 'send_REFUNDED', '__proto__', 'constructor', '',
  'url', 'description', 'confirm', 'instanceId', 'activationLimit',
  'duration', 'durationPeriods', 'maxRedemptions', 'maxPerCustomer', 'startsAt', 'firstPurchaseOnly', 'quantity', 'customerSeats',
]; // prettier-ignore
const JSON_FIELDS = [
  'payload', 'assignEmail', 'prices', 'currency', 'value', 'expiresIn', 'userMail', 'userFirstName', 'userLastName', 'description',
  'chargeDescription', 'transactionIdToMigrate', 'productId', 'coupon', 'email', 'zipCode', 'country', 'nonEditableEmail', 'seconds', 'to',
  'firstName', 'lastName', 'name', 'type', 'chargeFrequency', 'trialDays', 'issuesLicences', '__proto__', 'constructor',
  'resumeAt', 'instanceName', 'instanceId', 'activationLimit', 'quantity', 'code', 'percentOff', 'amountsOff', 'duration',
  'durationPeriods', 'maxRedemptions', 'maxPerCustomer', 'otherProductIds', 'frequencies', 'firstPurchaseOnly', 'startsAt', 'expiresAt',
]; // prettier-ignore
const QUERY_KEYS = [
  'limit',
  'q',
  'done',
  'env',
  'country',
  'zip',
  'zipCode',
  'email',
  'embedded',
  'origin',
  'coupon',
  'payload',
  'nonEditableEmail',
  'archived',
  'x',
];
const WORDS = [
  'refund', 'cancel', 'assign', 'payload', 'card', 'create', 'revoke', 'ONETIME', 'SUBSCRIPTION', 'VAULTED', 'MONTHLY', 'yes', 'production',
  'sandbox', 'refunded', 'cancelled', '1', '0', '-1', '10000', '10001', '1e3', 'USD', 'usd', 'EUR', 'XYZ', 'DE', 'US', 'HK', 'ZZ', '12/34',
  '13/99', '123', '4242424242424242', '4000000000000002', '4111111111111111', 'USD 10', 'EUR 4.50, USD 5', '25%', '101%', '2031-01-31',
  'https://shop.example', 'http://127.0.0.1:9/hooks', 'https://[::1]/hooks', 'add', 'test', 'replay', 'remove', 'enable', 'javascript:alert(1)', 'a@example.com', 'not-an-email', 'customer@example.com', 'true', 'null', 'NaN', '∞',
  'seats',
]; // prettier-ignore
/** Percent-encoding that is broken, decodes to something hostile, or walks the path. */
const NASTY_SEGMENTS = [
  '%', '%%', '%E0%A4%A', '%ZZ', '%00', 'a%00b', '%ED%A0%80', '%C0%AF', '%FF', '%F0%9F%92%A9', '..', '%2e%2e', '.', '%2F', '%2F..%2F', '%20',
  '%0A', '%0D%0A', '%3Cscript%3E', '%22', '%27%20OR%20%271%27%3D%271', '%E2%80%AE', 'TC-TR_', 'TC-PR_0000', 'PC_x', '~', '@', '%40',
]; // prettier-ignore

/** Percent-encodes text, lone UTF-16 surrogates included (as U+FFFD), and leaves `{{name}}` placeholders as they are. */
const encode = (value: string) =>
  value
    .split(/(\{\{[\w.-]+\}\})/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : encodeURIComponent(
            part.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
          ),
    )
    .join('');

/** A name of the world, written as a placeholder. */
const known = (world: World) => fc.constantFrom(...world.keys()).map((name) => `{{${name}}}`);

/** For a field or path parameter, the names of the world that belong there. */
const BELONGS: [field: RegExp, names: RegExp][] = [
  [/^session$/, /\.adminSession$/],
  [/^token$/, /\.(manage|adminLink)$/],
  [/^productId$/, /\.(product\.\w+|customized)$/],
  [/^(transactionId|id|q)$/, /\.tx\.\w+$/],
  [/^(email|customerEmail|assignEmail|userMail)$/, /\.email$/],
  [/^(licence|hashId)$/, /\.(licence|id\d+)$/],
  [/^csrf$/, /^(panelCsrf|loginCsrf|operatorCsrf)$/],
  [/^formToken$/, /\.(manageForm|adminForm)$/],
  [/^version$/, /\.adminVersion$/],
];

/** An existing value that belongs in `field` (any existing value when none does). */
const belonging = (world: World, field: string) => {
  const names = [...world.keys()].filter((name) =>
    BELONGS.some(([fits, belongs]) => fits.test(field) && belongs.test(name)),
  );
  return names.length > 0 ? fc.constantFrom(...names).map((name) => `{{${name}}}`) : known(world);
};

const junkText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 1, arbitrary: fc.constantFrom(255, 256, 1001, 5000).map((n) => 'x'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\u202e',
      '<script>alert(1)</script>',
      "' OR '1'='1",
      '\r\n',
    ),
  },
);

/** Text for `field`: mostly junk, often the existing value that belongs there, sometimes another or one spoiled. */
const text = (world: World, field = '') =>
  fc.oneof(
    { weight: 4, arbitrary: junkText },
    { weight: 3, arbitrary: belonging(world, field) },
    { weight: 1, arbitrary: known(world) },
    { weight: 1, arbitrary: fc.tuple(belonging(world, field), junkText).map(([value, junk]) => value + junk) },
  );

/** A path parameter's value, as it goes into the path (percent-encoded, or deliberately not). */
const segment = (world: World, param: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 3, arbitrary: junkText.map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(999, 1000, 1001, 4000).map((n) => 'y'.repeat(n)) },
    { weight: 5, arbitrary: belonging(world, param) },
    { weight: 1, arbitrary: known(world) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(belonging(world, param), fc.constantFrom(...NASTY_SEGMENTS))
        .map(([value, junk]) => value + junk),
    },
  );

/** A field name (mostly one a form or endpoint knows) with a value for it. */
const field = (world: World, names: readonly string[]) =>
  fc
    .oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: junkText })
    .chain((name) => text(world, name).map((value) => [name, value] as [string, string]));

const query = (world: World) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    {
      weight: 3,
      arbitrary: fc
        .array(field(world, QUERY_KEYS), { minLength: 1, maxLength: 4 })
        .map((pairs) => `?${pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&')}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '?',
        '?%',
        '?a=%',
        '?limit=%00',
        '?q=%E0%A4%A',
        '?&&==',
        '?done=constructor',
        '?env=production&env=sandbox',
      ),
    },
  );

const jsonValue = (world: World): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.oneof(field(world, JSON_FIELDS), fc.tuple(fc.constantFrom(...JSON_FIELDS), fc.jsonValue({ maxDepth: 2 }))),
          { maxLength: 4 },
        )
        .map((pairs) => Object.fromEntries(pairs)),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        prices: fc.oneof(
          fc.array(
            fc.record({
              currency: fc.oneof(fc.constantFrom('USD', 'EUR', 'JPY', 'usd', 'XYZ'), junkText),
              value: fc.oneof(fc.double(), fc.integer(), junkText),
            }),
            { maxLength: 3 },
          ),
          junkText,
        ),
      }),
    },
  );

const body = (world: World): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 3, arbitrary: jsonValue(world).map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 4,
      arbitrary: fc
        .array(field(world, FORM_FIELDS), { maxLength: 8 })
        .map((fields) => ({ kind: 'form' as const, fields })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(junkText, fc.constantFrom('{', '[', '%%%&&&==', 'a=%E0%A4%A&b=%', '['.repeat(2000)))
        .map((t) => ({ kind: 'text' as const, text: t })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })
        .map((bytes) => ({ kind: 'bytes' as const, bytes })),
    },
  );

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=UTF-8', 'Application/X-WWW-Form-Urlencoded', 'text/plain', 'multipart/form-data; boundary=x',
  'application/xml', 'application/', '*/*', 'application/json, text/plain', 'application/x-www-form-urlencodedx', 'text/html',
]; // prettier-ignore
const FITTING_TYPES: Record<Body['kind'] | 'none', string[]> = {
  form: CONTENT_TYPES.filter((type) => /urlencoded$|urlencoded;/i.test(type)),
  json: CONTENT_TYPES.filter((type) => /^application\/json($|;)/.test(type)),
  text: ['text/plain', 'application/octet-stream'],
  bytes: ['application/octet-stream'],
  none: ['application/json', 'application/x-www-form-urlencoded'],
};

/** A header value Node's HTTP client will send: visible ASCII and spaces. */
const headerJunk = fc.string({
  unit: fc.constantFrom(
    ...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~',
  ),
  maxLength: 40,
});

const headers = (world: World, own: string, other: string) =>
  fc
    .record(
      {
        authorization: fc.oneof(
          { weight: 4, arbitrary: fc.constant(own) },
          { weight: 1, arbitrary: fc.constantFrom(other, `${own}x`, `Bearer ${own}`) },
          { weight: 1, arbitrary: headerJunk },
        ),
        'idempotency-key': fc.oneof(
          headerJunk,
          fc.constantFrom(255, 256, 300).map((n) => 'k'.repeat(n)),
          fc.constant(''),
        ),
        cookie: fc.oneof(
          { weight: 3, arbitrary: fc.constant('{{panelCookies}}') },
          { weight: 3, arbitrary: fc.constant('{{panelCookies}}; {{operatorCookie}}') },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'ot_panel={{panelCsrf}}',
              'ot_panel_csrf={{loginCsrf}}',
              'ot_panel_csrf=x; ot_panel=y',
            ),
          },
          { weight: 1, arbitrary: headerJunk },
        ),
        'x-forwarded-for': fc.oneof(
          fc.constantFrom('8.8.8.8', '2001:db8::1', '999.1.1.1', 'unknown', '1.2.3.4, 10.0.0.1', ''),
          headerJunk,
        ),
        accept: fc.oneof(fc.constantFrom('text/html', 'application/json', '*/*', 'application/pdf', ''), headerJunk),
        'x-request-id': headerJunk,
      },
      { requiredKeys: [] },
    )
    .map((picked) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(picked)) if (value !== undefined) out[name] = value;
      return out;
    });

/** Requests aimed at `routes`: mostly the route's own method, mostly invalid input. */
export function fuzzCases(
  world: World,
  routes: readonly Route[],
  authorization: { production: string; sandbox: string },
): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...routes).chain((route) => {
    const sandbox = route.url.startsWith('/sandbox');
    const [own, other] = sandbox
      ? [authorization.sandbox, authorization.production]
      : [authorization.production, authorization.sandbox];
    const params = (route.url.match(/:\w+|\*/g) ?? []).map((hole) => hole.slice(1));
    const payload = fc
      .option(body(world), { freq: 3 })
      .chain((given) =>
        fc
          .oneof(
            { weight: 5, arbitrary: fc.constantFrom(...FITTING_TYPES[given?.kind ?? 'none']) },
            { weight: 2, arbitrary: fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerJunk) },
            { weight: 1, arbitrary: fc.constant(null) },
          )
          .map((contentType) => ({ body: given, contentType })),
      );
    return fc
      .record({
        route: fc.constant(route),
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        ),
        params: fc.tuple(...params.map((param) => segment(world, param))),
        tail: fc.oneof(
          { weight: 8, arbitrary: fc.constant('') },
          { weight: 1, arbitrary: fc.constantFrom('/', '//', '/..', '/x', '/%', '?') },
        ),
        query: query(world),
        payload,
        headers: headers(world, own, other),
      })
      .map(({ payload: { body: given, contentType }, ...rest }) => ({ ...rest, body: given, contentType }));
  });
}

/** The world's current value for every `{{name}}` in `value`, transformed by `encode`. */
function fill(value: string, world: World, encode: (s: string) => string = (s) => s): string {
  return value.replace(/\{\{([\w.-]+)\}\}/g, (_, name: string) => encode(world.get(name) ?? ''));
}

function fillJson(value: unknown, world: World): unknown {
  if (typeof value === 'string') return fill(value, world);
  if (Array.isArray(value)) return value.map((item) => fillJson(item, world));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillJson(item, world)]));
  return value;
}

/** The request to send: path parameters, query and body with the world's values filled in. */
export function materialize(fuzzCase: FuzzCase, world: World): RawRequest {
  let hole = 0;
  const path = fuzzCase.route.url.replace(/:[A-Za-z]+|\*/g, () =>
    fill(fuzzCase.params[hole++] ?? '', world, encodeURIComponent),
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fuzzCase.headers)) headers[name] = fill(value, world);
  if (fuzzCase.contentType !== null) headers['content-type'] = fuzzCase.contentType;
  let body: Buffer | undefined;
  const given = fuzzCase.body;
  if (given?.kind === 'json') body = Buffer.from(JSON.stringify(fillJson(given.value, world)) ?? '');
  else if (given?.kind === 'form')
    body = Buffer.from(new URLSearchParams(given.fields.map(([name, value]) => [name, fill(value, world)])).toString());
  else if (given?.kind === 'text') body = Buffer.from(fill(given.text, world));
  else if (given?.kind === 'bytes') body = Buffer.from(given.bytes);
  return {
    method: fuzzCase.method,
    path: path + fuzzCase.tail + fill(fuzzCase.query, world, encodeURIComponent),
    headers,
    body,
  };
}
