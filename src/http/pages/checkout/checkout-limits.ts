import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.ts';
import type { Environment } from '../../../domain/model.ts';
import { limitEachNamedKey, type Checked } from '../../rate-limits.ts';

/**
 * The checkout's own limits (docs/decisions.md §14, "Checkout sessions"). Anyone may open a checkout, and
 * each session it starts makes a customer and a payment at the processor, whose API limit renewals
 * and refunds share: sessions and quotes are counted per client address (before anything is read)
 * and per product (once it is found, so a product's customized links count with it), a minute at a
 * time, in Redis with REDIS_URL. Each environment counts apart: the sandbox has a processor account of
 * its own. A request over either limit is answered 429 with Retry-After.
 */
export interface Refusal {
  retryAfterSeconds: number;
  message: string;
}

type Check = (request: FastifyRequest) => Promise<Refusal | undefined>;
type ProductCheck = (request: FastifyRequest, productId: string) => Promise<Refusal | undefined>;

export interface CheckoutLimits {
  sessions: { byAddress: Check; byProduct: ProductCheck };
  quotes: { byAddress: Check; byProduct: ProductCheck };
}

const refusal = async (
  checked: Checked | Promise<Checked>,
  message: (seconds: number) => string,
): Promise<Refusal | undefined> => {
  const { exceeded, retryAfterSeconds } = await checked;
  // At least a second: a Retry-After of 0 would invite the retry at once.
  const seconds = Math.max(1, retryAfterSeconds);
  return exceeded ? { retryAfterSeconds: seconds, message: message(seconds) } : undefined;
};

export function checkoutLimits(app: FastifyInstance, config: Config, environment: Environment): CheckoutLimits {
  const redis = config.redis !== undefined;
  const limits = config.rateLimit.checkout;
  const pair = (name: string, perAddress: number, perProduct: number, what: string) => {
    const address = limitEachNamedKey(app, { redis, max: perAddress, name: `checkout-${name}-address` });
    const product = limitEachNamedKey(app, { redis, max: perProduct, name: `checkout-${name}-product` });
    return {
      // An IPv6 client counts by its /64, as the per-address limit does.
      byAddress: (request: FastifyRequest) =>
        refusal(
          address(`${environment}:${normalizeIP(request.ip)}`, request),
          (s) => `Too many ${what} from your address; wait ${s} s and try again. Nothing was charged.`,
        ),
      byProduct: (request: FastifyRequest, productId: string) =>
        refusal(
          product(`${environment}:${productId}`, request),
          (s) => `Too many ${what} for this product right now; wait ${s} s and try again. Nothing was charged.`,
        ),
    };
  };
  return {
    sessions: pair('session', limits.sessionsPerAddress, limits.sessionsPerProduct, 'payments started'),
    quotes: pair('quote', limits.quotesPerAddress, limits.quotesPerProduct, 'price updates'),
  };
}
