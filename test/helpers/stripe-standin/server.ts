import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from './api.ts';
import { ApiError, apiError500, invalidRequest, publishableKeyForbidden } from './errors.ts';
import { parseForm, validate, type FormObject } from './params.ts';
import type { Payments } from './payments.ts';
import { challengeHtml, PAYMENT_ELEMENT_HTML, stripeJs } from './stripe-js.ts';
import { API_VERSION, randomToken, type Obj, type Store } from './store.ts';
import type { Webhooks } from './webhooks.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Fault {
  method?: string;
  path: RegExp;
  mode: 'hang' | 'drop-response' | 'error-500';
  /** How many matching requests it hits; unlimited when not given (until faults.clear()). */
  times?: number;
}

interface IdempotentEntry {
  method: string;
  path: string;
  hash: string;
  inFlight: boolean;
  status: number;
  body: Obj;
  requestId: string;
  at: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Card data never lands in the request log: the number keeps its last 4 digits, the CVC nothing. */
export function redactCardData(body: string): string {
  if (!body.includes('card')) return body;
  return body.replace(
    /((?:^|&)(?:[^=&]*(?:card|payment_method_data)[^=&]*?)(%5B|\[)(number|cvc)(%5D|\])=)([^&]*)/gi,
    (_m, prefix, _o, field, _c, value) => {
      const raw = decodeURIComponent(String(value).replace(/\+/g, ' ')).replace(/\D/g, '');
      return (
        prefix +
        (String(field).toLowerCase() === 'number'
          ? `${'*'.repeat(Math.max(0, raw.length - 4))}${raw.slice(-4)}`
          : '***')
      );
    },
  );
}

function canonical(node: FormObject): string {
  const sort = (n: unknown): unknown =>
    typeof n === 'object' && n !== null
      ? Object.keys(n)
          .sort()
          .map((k) => [k, sort((n as Record<string, unknown>)[k])])
      : n;
  return createHash('sha256')
    .update(JSON.stringify(sort(node)))
    .digest('hex');
}

const mask = (key: string) => `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

export interface ServerDeps {
  store: Store;
  payments: Payments;
  routes: Route[];
  webhooks: Webhooks;
  secretKey: string;
  publishableKey: string;
  requests: RecordedRequest[];
  baseUrl: () => string;
}

/** The HTTP side: request log, faults, CORS, the Stripe.js assets, keys, idempotency, routing. */
export class StandInServer {
  private readonly faults: (Fault & { left: number })[] = [];
  private readonly idempotency = new Map<string, IdempotentEntry>();
  readonly hanging = new Set<ServerResponse>();

  private readonly d: ServerDeps;
  constructor(d: ServerDeps) {
    this.d = d;
  }

  readonly faultControl = {
    add: (f: Fault) => {
      this.faults.push({ ...f, left: f.times ?? Infinity });
    },
    clear: () => {
      this.faults.length = 0;
    },
  };

  private takeFault(method: string, path: string): Fault | undefined {
    const fault = this.faults.find(
      (f) => f.left > 0 && (!f.method || f.method.toUpperCase() === method) && f.path.test(path),
    );
    if (fault) fault.left--;
    return fault;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', this.d.baseUrl());
    const path = url.pathname;
    const query = url.search.slice(1);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    this.d.requests.push({ method, path, query, headers, body: redactCardData(body), at: Date.now() });

    const requestId = `req_${randomToken(14)}`;
    const common: Record<string, string> = {
      'request-id': requestId,
      'stripe-version': API_VERSION,
      'access-control-allow-origin': '*',
      'access-control-expose-headers':
        'Request-Id, Stripe-Version, Idempotency-Key, Idempotent-Replayed, Original-Request',
      'cache-control': 'no-cache, no-store',
    };
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        ...common,
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers':
          req.headers['access-control-request-headers'] ??
          'authorization, content-type, stripe-version, idempotency-key',
        'access-control-max-age': '300',
      });
      res.end();
      return;
    }

    const idemKey =
      method === 'POST' && typeof req.headers['idempotency-key'] === 'string'
        ? req.headers['idempotency-key']
        : undefined;
    let drop = false;
    const fault = this.takeFault(method, path);
    if (fault?.mode === 'hang') {
      this.hanging.add(res);
      const scope = this.scopeOf(req);
      if (idemKey && scope && !this.idempotency.has(`${scope}\0${idemKey}`))
        this.idempotency.set(`${scope}\0${idemKey}`, {
          method,
          path,
          hash: '',
          inFlight: true,
          status: 0,
          body: {},
          requestId,
          at: this.d.store.now(),
        });
      return;
    }
    if (fault?.mode === 'error-500') {
      const error = apiError500();
      this.json(res, 500, { error: { ...error.error, request_log_url: this.logUrl(requestId) } }, common, false);
      return;
    }
    if (fault?.mode === 'drop-response') drop = true;

    // Static assets: Stripe.js and the pages it opens.
    if (method === 'GET' && (path === '/v3' || path === '/v3/')) {
      res.writeHead(200, { ...common, 'content-type': 'application/javascript; charset=utf-8' });
      res.end(stripeJs(this.d.baseUrl(), API_VERSION));
      return;
    }
    if (method === 'GET' && path === '/elements/payment.html') {
      res.writeHead(200, { ...common, 'content-type': 'text/html; charset=utf-8' });
      res.end(PAYMENT_ELEMENT_HTML);
      return;
    }
    const challenge = /^\/3ds\/challenge\/([A-Za-z0-9]+)$/.exec(path);
    if (challenge) {
      this.challenge(method, challenge[1]!, body, res, common);
      return;
    }
    if (!path.startsWith('/v1/')) {
      res.writeHead(404, { ...common, 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found');
      return;
    }

    const answer = (status: number, payload: Obj, extra: Record<string, string> = {}) => {
      if (drop) {
        res.socket?.destroy();
        this.d.webhooks.kick();
        return;
      }
      res.once('finish', () => this.d.webhooks.kick());
      this.json(res, status, payload, { ...common, ...extra }, false);
    };
    const fail = (error: ApiError) =>
      answer(error.status, { error: { ...error.error, request_log_url: this.logUrl(requestId) } });

    // The key.
    const key = this.keyOf(req);
    if (!key) {
      fail(
        new ApiError(401, {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        }),
      );
      return;
    }
    const kind = key === this.d.secretKey ? 'secret' : key === this.d.publishableKey ? 'publishable' : null;
    if (!kind) {
      fail(new ApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${mask(key)}` }));
      return;
    }
    const version = req.headers['stripe-version'];
    if (typeof version === 'string' && version !== API_VERSION) {
      fail(
        invalidRequest(
          `Invalid Stripe API version: ${version}. The Stripe stand-in answers in API version ${API_VERSION} only.`,
          { param: 'Stripe-Version' },
        ),
      );
      return;
    }
    if (
      method === 'POST' &&
      body !== '' &&
      !String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
    ) {
      fail(
        invalidRequest(
          `Invalid request: unsupported Content-Type ${req.headers['content-type']}. Stripe accepts application/x-www-form-urlencoded.`,
        ),
      );
      return;
    }

    // The endpoint.
    const candidates = this.d.routes.filter((r) => r.pattern.test(path));
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      fail(
        new ApiError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/. (The Stripe stand-in implements only the endpoints opentill uses: see test/helpers/stripe-standin/api.ts.)`,
        }),
      );
      return;
    }
    if (kind === 'publishable' && !route.publishable) {
      fail(publishableKeyForbidden());
      return;
    }

    let raw: FormObject;
    try {
      raw = parseForm(method === 'POST' ? body : query);
    } catch (e) {
      if (e instanceof ApiError) fail(e);
      else throw e;
      return;
    }

    // Idempotency: the same key with the same request answers the first answer again and does nothing else.
    const scopeKey = idemKey !== undefined ? `${key}\0${idemKey}` : undefined;
    const hash = canonical(raw);
    if (idemKey !== undefined) {
      if (idemKey === '' || idemKey.length > 255) {
        fail(
          invalidRequest('Idempotency-Key must be a non-empty string of at most 255 characters.', {
            param: 'Idempotency-Key',
          }),
        );
        return;
      }
      const entry = this.idempotency.get(scopeKey!);
      if (entry && this.d.store.now() - entry.at > DAY_MS) this.idempotency.delete(scopeKey!);
      else if (entry?.inFlight) {
        fail(
          new ApiError(409, {
            type: 'idempotency_error',
            code: 'idempotency_key_in_use',
            doc_url: 'https://stripe.com/docs/error-codes/idempotency-key-in-use',
            message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${idemKey}. Please try again later.`,
          }),
        );
        return;
      } else if (entry) {
        if (entry.method !== method || entry.path !== path || entry.hash !== hash) {
          fail(
            new ApiError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
            }),
          );
          return;
        }
        answer(entry.status, entry.body, {
          'idempotency-key': idemKey,
          'idempotent-replayed': 'true',
          'original-request': entry.requestId,
        });
        return;
      }
    }

    const match = route.pattern.exec(path)!;
    const ctx = {
      params: {} as Record<string, any>,
      path: { ...match.groups } as Record<string, string>,
      key: kind,
      request: { id: requestId, idempotency_key: idemKey ?? null },
    } as const;
    try {
      (ctx as { params: Record<string, any> }).params = validate(raw, route.schema) as Record<string, any>;
      route.check?.(ctx);
    } catch (e) {
      // A request that fails validation is not kept for its idempotency key: nothing was executed.
      if (e instanceof ApiError) fail(e);
      else throw e;
      return;
    }

    if (scopeKey)
      this.idempotency.set(scopeKey, {
        method,
        path,
        hash,
        inFlight: true,
        status: 0,
        body: {},
        requestId,
        at: this.d.store.now(),
      });
    let status = 200;
    let payload: Obj;
    try {
      payload = route.handle(ctx);
    } catch (e) {
      if (e instanceof ApiError) {
        status = e.status;
        payload = { error: { ...e.error, request_log_url: this.logUrl(requestId) } };
      } else {
        status = 500;
        payload = {
          error: { type: 'api_error', message: `The Stripe stand-in failed: ${(e as Error).stack ?? String(e)}` },
        };
      }
    }
    if (scopeKey)
      this.idempotency.set(scopeKey, {
        method,
        path,
        hash,
        inFlight: false,
        status,
        body: payload,
        requestId,
        at: this.d.store.now(),
      });
    answer(status, payload, idemKey ? { 'idempotency-key': idemKey } : {});
  }

  private keyOf(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (!auth) return undefined;
    if (/^bearer /i.test(auth)) return auth.slice(7).trim() || undefined;
    if (/^basic /i.test(auth))
      return Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8').split(':')[0] || undefined;
    return undefined;
  }

  private scopeOf(req: IncomingMessage): string | undefined {
    const key = this.keyOf(req);
    return key === this.d.secretKey || key === this.d.publishableKey ? key : undefined;
  }

  private logUrl(requestId: string) {
    return `https://dashboard.stripe.com/test/logs/${requestId}?t=${this.d.store.created()}`;
  }

  private json(res: ServerResponse, status: number, payload: Obj, headers: Record<string, string>, _drop: boolean) {
    const text = JSON.stringify(payload, null, 2);
    res.writeHead(status, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  private challenge(method: string, token: string, body: string, res: ServerResponse, common: Record<string, string>) {
    const found = this.d.store.challenges.get(token);
    if (method === 'GET') {
      if (!found) {
        res.writeHead(404, { ...common, 'content-type': 'text/html; charset=utf-8' });
        res.end(
          '<!doctype html><title>3D Secure</title><p>This authentication has expired or was already completed.</p>',
        );
        return;
      }
      const intent = this.d.store.get(found.kind === 'payment_intent' ? 'payment_intents' : 'setup_intents', found.id);
      const pm = this.d.store.find('payment_methods', intent.payment_method);
      const amount =
        found.kind === 'payment_intent'
          ? new Intl.NumberFormat('en-US', { style: 'currency', currency: intent.currency.toUpperCase() }).format(
              intent.amount / 10 ** currencyDigits(intent.currency),
            )
          : null;
      res.writeHead(200, { ...common, 'content-type': 'text/html; charset=utf-8' });
      res.end(
        challengeHtml({
          what: found.kind === 'payment_intent' ? 'a payment' : 'saving a card for later payments',
          amount,
          card: pm ? `${pm.card.brand} •••• ${pm.card.last4}` : 'card',
        }),
      );
      return;
    }
    if (method !== 'POST') {
      res.writeHead(405, common).end();
      return;
    }
    const action = new URLSearchParams(body).get('action');
    if (action !== 'complete' && action !== 'fail') {
      this.json(
        res,
        400,
        { error: { type: 'invalid_request_error', message: 'action must be complete or fail' } },
        common,
        false,
      );
      return;
    }
    const settled = this.d.payments.settleChallenge(token, action);
    if (!settled) {
      this.json(
        res,
        404,
        {
          error: {
            type: 'invalid_request_error',
            message: 'This authentication has expired or was already completed.',
          },
        },
        common,
        false,
      );
      return;
    }
    const { intent, returnUrl } = settled;
    let redirect: string | null = null;
    if (returnUrl) {
      const prefix = intent.object === 'payment_intent' ? 'payment_intent' : 'setup_intent';
      const target = new URL(returnUrl);
      target.searchParams.set(prefix, intent.id);
      target.searchParams.set(`${prefix}_client_secret`, intent.client_secret);
      target.searchParams.set('redirect_status', intent.status === 'succeeded' ? 'succeeded' : 'failed');
      redirect = target.toString();
    }
    res.once('finish', () => this.d.webhooks.kick());
    this.json(res, 200, { status: intent.status, redirect }, common, false);
  }
}

const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
const currencyDigits = (currency: string) => (ZERO_DECIMAL.has(currency) ? 0 : 2);
