import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/*
 * Where the per-address and per-credential limits are counted (docs/decisions.md §4). With REDIS_URL,
 * @fastify/rate-limit counts them in Redis, so processes count together. Without it they are counted
 * here, in this process's memory and synchronously: the plugin's hooks, each a chain of promises, cost
 * a fifth of a read by id's CPU under load (109 against 86 µs with both limits switched off). The
 * plugin still limits the routes that carry their own `config.rateLimit`.
 */

/** One counted request: what the limit headers say, and whether it is over the limit. */
export interface Hit {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  exceeded: boolean;
}

/**
 * Counts as the plugin's in-memory store does: each key's window starts with its first request and
 * lasts `windowMs`, a request over `limit` in it is refused, and beyond `maxKeys` the key used least
 * recently is dropped.
 */
export function windowCounter(limit: number, windowMs: number, maxKeys = 5000): (key: string, now?: number) => Hit {
  const windows = new Map<string, { count: number; start: number }>();
  return (key, now = Date.now()) => {
    let window = windows.get(key);
    // Set again below, so the map's order is by last use and its first key the one idle longest.
    if (window !== undefined) windows.delete(key);
    else if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
    if (window === undefined || window.start + windowMs <= now) window = { count: 0, start: now };
    windows.set(key, window);
    window.count++;
    return {
      limit,
      remaining: Math.max(0, limit - window.count),
      resetSeconds: Math.ceil((window.start + windowMs - now) / 1000),
      exceeded: window.count > limit,
    };
  };
}

export interface Checked {
  exceeded: boolean;
  retryAfterSeconds: number;
}

/**
 * A limit of `max` a minute (or `windowMs`) for each key the caller names (the checkout's per-product limit, known
 * only once the product is found), checked by the caller: in Redis through the plugin, so processes
 * count together, else here without a promise.
 */
export function limitEachNamedKey(
  app: FastifyInstance,
  options: { redis: boolean; max: number; name: string; windowMs?: number },
): (key: string, request: FastifyRequest) => Checked | Promise<Checked> {
  const { max, name, windowMs = 60_000 } = options;
  if (options.redis) {
    // The plugin asks the request for its key: the one this check was given.
    const keys = new WeakMap<FastifyRequest, string>();
    const limiter = app.createRateLimit({
      max,
      timeWindow: windowMs,
      keyGenerator: (request) => `${name}:${keys.get(request)}`,
    });
    return async (key, request) => {
      keys.set(request, key);
      const limit = await limiter(request);
      return {
        exceeded: !limit.isAllowed && limit.isExceeded,
        retryAfterSeconds: limit.isAllowed ? 0 : limit.ttlInSeconds,
      };
    };
  }
  const hit = windowCounter(max, windowMs, 10_000);
  return (key) => {
    const counted = hit(`${name}:${key}`);
    return { exceeded: counted.exceeded, retryAfterSeconds: counted.resetSeconds };
  };
}

/** A limit of `max` a minute for each key `keyOf` gives (the per-credential limit); see `limitEachNamedKey`. */
export function limitEachKey(
  app: FastifyInstance,
  options: { redis: boolean; max: number; keyOf: (request: FastifyRequest) => string; name: string },
): (request: FastifyRequest) => Checked | Promise<Checked> {
  const check = limitEachNamedKey(app, options);
  return (request) => check(options.keyOf(request), request);
}

/** What a request over the per-address limit is answered, by this hook and by the plugin alike. */
export function addressLimited(request: FastifyRequest, ttlMs: number) {
  return {
    statusCode: 429,
    requestId: request.id,
    error: 'RATE_LIMITED',
    message: `Too many requests from this address; retry in ${Math.ceil(ttlMs / 1000)} s.`,
  };
}

/**
 * The per-address limit on every route that has no `config.rateLimit` of its own, as the plugin's
 * `global` option sets it: a hook of the route, after the application's own (so a request refused
 * at authentication is not counted), with the plugin's headers and its address key.
 */
export function limitEachAddress(app: FastifyInstance, limit: number, windowMs: number) {
  const hit = windowCounter(limit, windowMs);
  // The plugin's key for an address (an IPv6 address's /64, a mapped IPv4 address as IPv4) costs a long
  // regular expression per request: worked out once per address instead.
  const keys = new Map<string, string>();
  const keyOf = (ip: string) => {
    let key = keys.get(ip);
    if (key === undefined) {
      if (keys.size >= 10_000) keys.clear();
      keys.set(ip, (key = normalizeIP(ip)));
    }
    return key;
  };
  const hook = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const counted = hit(keyOf(request.ip));
    reply.header('x-ratelimit-limit', counted.limit);
    reply.header('x-ratelimit-remaining', counted.remaining);
    reply.header('x-ratelimit-reset', counted.resetSeconds);
    if (!counted.exceeded) return done();
    reply.header('retry-after', counted.resetSeconds);
    // The same plain object the plugin throws; the error handler makes it the answer.
    done(addressLimited(request, counted.resetSeconds * 1000) as unknown as Error);
  };
  app.addHook('onRoute', (route) => {
    if ((route.config as { rateLimit?: unknown } | undefined)?.rateLimit != null) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), hook] as never;
  });
}

/**
 * The client script's routes (src/http/public-plugin.ts): a tenth of the API's per-address budget
 * (1,200 a minute by default), counted for each route by the plugin, in place of the per-address limit.
 * Set where the route is declared: the plugin reads it as the route is added, before any hook of the
 * route's own plugin could set it.
 */
export const publicRouteLimit = (perAddressPerMinute: number) => ({
  rateLimit: { max: Math.max(1, Math.floor(perAddressPerMinute / 10)), timeWindow: 60_000 },
});
