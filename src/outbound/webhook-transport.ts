import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  isLinkLocal,
  isPublicAddress,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookTransport,
} from '../domain/webhooks/index.ts';

/**
 * Webhook deliveries over node's HTTP client (docs/decisions.md §27). The host is resolved for each
 * try and every address it gives is checked; the connection goes to the checked address (the
 * client's own lookup is replaced), so a name that answers a public address to the check and a
 * private one to the connect reaches nothing. No redirect is followed: a 3xx is the answer. One try
 * has one time limit for everything, resolving, connecting, sending and the answer.
 */
export function webhookTransport(
  // The system's resolver; the tests give one that answers what they need (a private address, a name that changes).
  resolve: (host: string) => Promise<string[]> = async (host) =>
    (await dnsLookup(host.replace(/^\[|\]$/g, ''), { all: true, verbatim: true })).map((a) => a.address),
): WebhookTransport {
  return {
    resolve,
    post: (request) => post(request, resolve),
  };
}

async function post(request: WebhookRequest, resolve: (host: string) => Promise<string[]>): Promise<WebhookResponse> {
  const url = new URL(request.url);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  let addresses: string[];
  try {
    addresses = await Promise.race([resolve(url.hostname), aborted(deadline)]);
  } catch (err) {
    return {
      status: null,
      error: deadline.aborted ? timedOut(request) : `${url.hostname} does not resolve (${code(err)})`,
    };
  }
  const address = addresses[0];
  if (address === undefined) return { status: null, error: `${url.hostname} resolves to no address` };
  const hidden = addresses.find((a) => !isPublicAddress(a));
  if (!request.allowPrivate && hidden !== undefined)
    return { status: null, error: `${url.hostname} resolves to ${hidden}, which is not a public address: not sent` };
  const linkLocal = addresses.find((a) => isLinkLocal(a));
  if (!request.allowLinkLocal && linkLocal !== undefined)
    return { status: null, error: `${url.hostname} resolves to ${linkLocal}, a link-local address: not sent` };
  const lookup: LookupFunction = (_host, options, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if (options.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
    lookup,
    signal: deadline,
    agent: false,
  };
  return new Promise<WebhookResponse>((done) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, options, (res) => {
      // The answer's body is not read beyond what arrives; only its status counts.
      res.resume();
      res.on('end', () => done({ status: res.statusCode ?? 0 }));
      res.on('error', () => done({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (err) => done({ status: null, error: deadline.aborted ? timedOut(request) : code(err) }));
    req.end(request.body);
  });
}

const timedOut = (request: WebhookRequest) => `no answer within ${request.timeoutMs / 1000} s`;

const code = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return e.code ?? e.message ?? 'failed';
};

const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
