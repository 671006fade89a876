import { errorFor, type OpenTillError } from './errors.ts';

/**
 * One HTTP call to opentill's /v1, with its retries. A POST gets an Idempotency-Key once, before the
 * first try, and every retry of that call sends the same key, so the server does the work once
 * (docs/decisions.md §31). Retried: an answer of 5xx, a 409 PAYMENT_PENDING or REQUEST_IN_PROGRESS
 * (the same key must come back later), and no answer at all; every other 4xx is final. The wait is the
 * answer's Retry-After when it has one, else an exponential backoff; a Retry-After longer than
 * `maxDelayMs` is not waited for: the error is thrown at once with its `retryAfterSeconds`.
 */

export interface RetryOptions {
  /** Retries after the first try (default 3; 0 turns retries off). */
  maxRetries?: number;
  /** The longest wait before a retry (default 30 000 ms). */
  maxDelayMs?: number;
  /** The first backoff without a Retry-After, doubled on each retry (default 500 ms). */
  baseDelayMs?: number;
}

export interface TransportOptions {
  /** {base_url} or {sandbox_url}: e.g. http://localhost:3000/sandbox. Calls go to `${baseUrl}/v1/...`. */
  baseUrl: string;
  /** The API credential, `API_LOGIN:API_PASSWORD`, sent as the Authorization header. */
  credential: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
}

export interface CallOptions {
  /** A key of your own for a POST (1 to 255 characters); by default a new random one per call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface Request {
  method: 'GET' | 'POST';
  /** Under /v1 (or /public/v1 with `api: 'public/v1'`), its parameters already encoded. */
  path: string;
  api?: 'v1' | 'public/v1';
  body?: unknown;
  options?: CallOptions;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or the text, when it is not JSON). */
  body: unknown;
  /** The Idempotency-Key this call was sent with (POSTs). */
  idempotencyKey: string | undefined;
}

const RETRIED_CONFLICTS = new Set(['PAYMENT_PENDING', 'REQUEST_IN_PROGRESS']);

/** Whether an answer may be asked again with the same key. */
export function isRetried(status: number, code: string | undefined): boolean {
  if (status >= 500) return true;
  return status === 409 && code !== undefined && RETRIED_CONFLICTS.has(code);
}

/** Retry-After in seconds (a number of seconds or an HTTP date), if the answer has one. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const field = (body: unknown, name: string): string | undefined => {
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
};

export class Transport {
  readonly #url: string;
  readonly #credential: string;
  readonly #fetch: typeof fetch;
  readonly #retry: Required<RetryOptions>;

  constructor(options: TransportOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required: {base_url} or {sandbox_url}');
    if (!options.credential) throw new TypeError('credential is required: API_LOGIN:API_PASSWORD');
    this.#url = options.baseUrl.replace(/\/+$/, '');
    this.#credential = options.credential;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#retry = { maxRetries: 3, maxDelayMs: 30_000, baseDelayMs: 500, ...options.retry };
  }

  /** Sends the request, retrying as the header comment says; resolves with a 2xx answer, else throws. */
  async call(request: Request): Promise<Answer> {
    const { method, path, body, api = 'v1', options = {} } = request;
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const headers: Record<string, string> = { authorization: this.#credential, accept: 'application/json' };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#try(`${this.#url}/${api}${path}`, { ...init, signal: options.signal }, request);
      const error = 'error' in outcome ? outcome.error : undefined;
      if (error === undefined) return { ...(outcome as Omit<Answer, 'idempotencyKey'>), idempotencyKey };
      const retried = error.status === 0 ? !options.signal?.aborted : isRetried(error.status, error.code);
      const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.#backoff(attempt);
      if (!retried || attempt >= this.#retry.maxRetries || wait > this.#retry.maxDelayMs) throw error;
      await sleep(wait, options.signal);
    }
  }

  #backoff(attempt: number): number {
    const delay = this.#retry.baseDelayMs * 2 ** attempt;
    return Math.min(this.#retry.maxDelayMs, delay / 2 + Math.random() * (delay / 2));
  }

  /** One try: the 2xx answer, or the error it makes (status 0: no answer). */
  async #try(
    url: string,
    init: RequestInit,
    request: Request,
  ): Promise<Omit<Answer, 'idempotencyKey'> | { error: OpenTillError }> {
    const idempotencyKey = (init.headers as Record<string, string>)['idempotency-key'];
    const where = { method: request.method, path: `/${request.api ?? 'v1'}${request.path}`, idempotencyKey };
    let response: Response;
    try {
      response = await this.#fetch(url, init);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      const error = errorFor({
        ...where,
        status: 0,
        code: 'CONNECTION_ERROR',
        message,
        requestId: undefined,
        retryAfterSeconds: undefined,
        body: undefined,
        cause,
      });
      return { error };
    }
    const body = await readBody(response);
    if (response.ok) return { status: response.status, headers: response.headers, body };
    const error = errorFor({
      ...where,
      status: response.status,
      code: field(body, 'error') ?? `HTTP_${response.status}`,
      message: field(body, 'message') ?? (typeof body === 'string' && body ? body : response.statusText),
      requestId: field(body, 'requestId') ?? response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds: retryAfterSeconds(response.headers),
      body,
    });
    return { error };
  }
}
