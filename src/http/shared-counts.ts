import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { repeatedFailures } from '../repeated-failures.ts';

/**
 * Where the rate limits count (docs/decisions.md §4): in Redis when REDIS_URL is set, so every
 * process sharing it counts together. A Redis that fails must not become an outage of the API
 * (docs/operations.md), whether it is down (refused at once: no offline queue) or silent (it accepts
 * and never answers, as a stopped or swapping server does): every command has 100 ms, and after one
 * fails, requests pass uncounted for a second without asking Redis at all, then one request asks
 * again. So a silent Redis costs the first requests 100 ms once, then nothing, and holds no growing
 * pile of commands; its failures are logged once a minute.
 */

/**
 * How long a Redis command may take before the request goes on uncounted. Judged once this process has
 * read what arrived meanwhile, so that a busy moment here (a long synchronous task, a machine short of
 * CPU) is not taken for a silent Redis and does not switch the limits off.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 100;
/** How long requests skip Redis after it failed, before one of them asks it again. */
const SKIP_AFTER_FAILURE_MS = 1_000;

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;
type PluginStore = FastifyRateLimitStore & {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
};

// The plugin's own Redis store (its Lua script, its key layout), wrapped below; it ships no types of its own.
const PluginRedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => PluginStore;

const SKIPPED = new Error('Redis failed a moment ago: not asked');
const TIMED_OUT = new Error(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`);

/** Whether to ask Redis now: closed after a failure for a second, then one request at a time until one succeeds. */
function failureGate() {
  let skipUntil = 0;
  let probing = false;
  return {
    mayAsk(): boolean {
      if (skipUntil === 0) return true;
      if (probing || Date.now() < skipUntil) return false;
      probing = true;
      return true;
    },
    answered(ok: boolean): void {
      probing = false;
      skipUntil = ok ? 0 : Date.now() + SKIP_AFTER_FAILURE_MS;
    },
  };
}

/** Whether the last answer from Redis was a failure: what /metrics reports as `opentill_redis_up`. */
interface RedisHealth {
  failing: boolean;
}

/** The plugin's store class over one Redis client, asking it only while the gate is open. */
function gatedStoreClass(
  redis: Redis,
  prefix: string,
  health: RedisHealth,
  on: { failure: (err: Error) => void; recovery: () => void },
): FastifyRateLimitStoreCtor {
  const gate = failureGate();
  const guarded = (store: PluginStore): FastifyRateLimitStore => ({
    incr(key: string, callback: Callback, timeWindow: number, max: number) {
      if (!gate.mayAsk()) return callback(SKIPPED);
      let settled = false;
      const settle: Callback = (err, result) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        gate.answered(err === null);
        if (err) {
          health.failing = true;
          on.failure(err);
        } else if (health.failing) {
          health.failing = false;
          on.recovery();
        }
        callback(err, result);
      };
      // Judged after the loop has read its sockets: a timer that fires late because this process was
      // busy (not because Redis was silent) finds the answer read in the same turn, before setImmediate.
      const deadline = setTimeout(() => setImmediate(() => settle(TIMED_OUT)), REDIS_COMMAND_TIMEOUT_MS);
      store.incr(key, settle, timeWindow, max);
    },
    child(routeOptions) {
      // A limiter made with createRateLimit has no route: its keys carry their own name (`cred:…`, `authfail:…`).
      const route = (routeOptions as FastifyRateLimitOptions & { routeInfo?: { method?: string; url?: string } })
        .routeInfo;
      const key = route?.url ? `${prefix}${route.method}${route.url}-` : prefix;
      return guarded(new PluginRedisStore(false, false, redis, key));
    },
  });
  return class {
    constructor() {
      return guarded(new PluginRedisStore(false, false, redis, prefix));
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/**
 * Where the rate-limit plugin counts: Redis's store, or none (each process counts alone); `up` says
 * whether Redis answered last time it was asked (undefined without Redis).
 */
export async function sharedCounts(
  app: FastifyInstance,
  config: Config,
): Promise<{ store?: FastifyRateLimitStoreCtor; up?: () => boolean }> {
  if (!config.redis) {
    app.log.info('rate limits are counted in this process alone; set REDIS_URL to count them across processes');
    return {};
  }
  // Loaded only here: a process without REDIS_URL does without ioredis's 7 MB.
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redis.url, {
    connectTimeout: 1_000,
    // Only a backstop that empties the queue of a silent Redis: a request waits REDIS_COMMAND_TIMEOUT_MS (above).
    commandTimeout: 10 * REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  const failures = repeatedFailures((line) => app.log.warn(line.details, line.message));
  const failed = (err: Error) =>
    failures.report('Redis does not answer: rate limits are not applied until it does', { message: err.message });
  // The connection's own errors (refused, reset) are the commands' failures seen earlier: logged the same way.
  redis.on('error', failed);
  // Connected before the first request, so that it is counted; a Redis that is down is retried in the background.
  await redis.connect().catch(() => undefined);
  app.addHook('onClose', async () => {
    failures.stop();
    redis.disconnect();
  });
  const health: RedisHealth = { failing: redis.status !== 'ready' };
  const store = gatedStoreClass(redis, config.redis.keyPrefix, health, {
    failure: failed,
    recovery: () => app.log.info('Redis answers again: rate limits are applied'),
  });
  return { store, up: () => !health.failing };
}
