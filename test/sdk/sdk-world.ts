import { OpenTill, type OpenTillOptions } from '../../packages/client/src/index.ts';
import type { TestApp, TestVendor } from '../helpers/test-app.ts';

/** One request the SDK sent, as the server received it, and its answer's status. */
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  status: number;
  at: number;
}

/** What a test does to a request instead of sending it: an answer of its own, or undefined to send it. */
export type Interpose = (sent: Omit<Sent, 'status' | 'at'>, index: number) => Response | undefined;

/**
 * A fetch in front of a running opentill that writes down every request the SDK makes (its headers,
 * when it left) and lets a test answer some of them itself (a 503, a lost connection) or rewrite an
 * answer (the original API's other spelling).
 */
export function recordingFetch(
  options: {
    interpose?: Interpose;
    /** Whether the answer to this request is lost after the server has done the work (a dropped connection). */
    lose?: (index: number) => boolean;
    rewrite?: (body: unknown, url: string) => unknown;
  } = {},
) {
  const sent: Sent[] = [];
  const fetcher: typeof fetch = async (input, init = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const request = {
      method: init.method ?? 'GET',
      url: String(input),
      headers,
      body: init.body as string | undefined,
    };
    const index = sent.length;
    const record: Sent = { ...request, status: 0, at: performance.now() };
    sent.push(record);
    const own = options.interpose?.(request, index);
    if (own) {
      record.status = own.status;
      return own;
    }
    const response = await fetch(input, init);
    record.status = response.status;
    if (options.lose?.(index)) {
      await response.arrayBuffer();
      throw new TypeError('fetch failed: the connection was lost');
    }
    if (!options.rewrite) return response;
    const text = await response.text();
    const body = text ? options.rewrite(JSON.parse(text) as unknown, String(input)) : undefined;
    return new Response(body === undefined ? text : JSON.stringify(body), {
      status: response.status,
      headers: response.headers,
    });
  };
  return { fetch: fetcher, sent };
}

/** The SDK pointed at a test app's sandbox (or production) as this vendor. */
export function sdkFor(
  t: TestApp,
  v: TestVendor,
  options: Partial<OpenTillOptions> & { environment?: 'sandbox' | 'production' } = {},
): OpenTill {
  const { environment = 'sandbox', ...rest } = options;
  return new OpenTill({
    baseUrl: environment === 'sandbox' ? `${t.url}/sandbox` : t.url,
    credential: v.credentials[environment].authorization,
    ...rest,
  });
}
