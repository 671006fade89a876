import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import type { Refusal } from './checkout-limits.ts';

// The JSON answers of the checkout's script routes (quote, session): refusals are never cached.

/** A request over one of the checkout's limits (./checkout-limits.ts): 429, with when to try again. */
export const refuse = (reply: FastifyReply, refusal: Refusal) =>
  reply
    .code(429)
    .header('retry-after', String(refusal.retryAfterSeconds))
    .header('cache-control', 'no-store')
    .send({ error: 'RATE_LIMITED', message: refusal.message });

/** A JSON refusal of the checkout's script routes, never cached. */
export const jsonFailure = (reply: FastifyReply) => (status: number, error: string, message: string) =>
  reply.code(status).header('cache-control', 'no-store').send({ error, message });

/** The start of the checkout's JSON routes: over the address's limit, 429; no such offer, its `{error, message}`. */
export async function jsonOffer(
  request: FastifyRequest<{ Params: { productId: string } }>,
  reply: FastifyReply,
  limit: { byAddress(request: FastifyRequest): Promise<Refusal | undefined> },
  offerOf: (productId: string) => Promise<{ scope: Scope; offer: Offer }>,
): Promise<{ scope: Scope; offer: Offer } | FastifyReply> {
  const overAddressLimit = await limit.byAddress(request);
  if (overAddressLimit) return refuse(reply, overAddressLimit);
  try {
    return await offerOf(request.params.productId);
  } catch (err) {
    if (!(err instanceof AppError && (err.code === 'LINK_EXPIRED' || err.code === 'NOT_FOUND'))) throw err;
    return jsonFailure(reply)(ERROR_STATUS[err.code], err.code, err.message);
  }
}
