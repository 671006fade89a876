import { AppError } from '../../../domain/errors.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import type { CheckoutContext, Params } from './checkout-context.ts';
import { embeddingOf, embeddingQuery } from './checkout-embedding.ts';
import { readCheckoutForm } from './checkout-form.ts';
import { jsonFailure, jsonOffer, refuse } from './checkout-json.ts';
import { vetCoupon } from './coupon-attempts.ts';
import { buyerText } from './checkout-buyer-words.ts';
import { buyerTranslator, explicitLocale } from '../buyer-language.ts';

/**
 * The processor's browser session of a form's payment, for the page's script: `{clientSecret,
 * mode, confirmUrl}` to confirm in the card element, `{redirect}` when there is nothing to confirm
 * (booked, or already settled), or `{error, message}`. The amount is priced here from the form's
 * details, never taken from the browser; the form's token keys the attempt, so twenty clicks make
 * one session.
 */
export function registerSession(app: HttpApp, ctx: CheckoutContext) {
  app.post<{ Params: Params; Body: FormBody }>(
    '/payment/product/:productId/session',
    { schema: { hide: true }, errorHandler: jsonErrorHandler },
    async (request, reply) => {
      const fail = jsonFailure(reply);
      const found = await jsonOffer(request, reply, ctx.limits.sessions, ctx.offerOf);
      if (!('offer' in found)) return found;
      const { scope, offer } = found;
      if (ctx.services.payments.cardEntry(ctx.environment).kind !== 'browser')
        return fail(404, 'NOT_FOUND', 'This checkout takes the card in its own form.');
      const form = readCheckoutForm(request, ctx.environment, offer);
      const tr = buyerTranslator(request);
      const token = form.token;
      if (token === undefined)
        return fail(400, 'INVALID_INPUT', 'The form has expired; reload the page and pay again.');
      if (form.couponChanged)
        return fail(
          409,
          'PRICE_CHANGED',
          'The coupon changed after the price was shown; reload the page to see the new price.',
        );
      if (form.coupon) {
        const verdict = await vetCoupon(ctx.services, request.ip, scope, offer.product.id, form.coupon);
        if (verdict.status === 'blocked') reply.header('retry-after', String(verdict.retryAfterSeconds));
        if (verdict.status !== 'valid')
          return fail(verdict.status === 'blocked' ? 429 : 400, 'INVALID_INPUT', buyerText(tr, verdict.message));
      }
      const confirmUrl = `${encodeURIComponent(request.params.productId)}/confirm/${encodeURIComponent(token)}${embeddingQuery(embeddingOf(request), explicitLocale(request))}`;
      try {
        if (form.details instanceof AppError) throw form.details;
        // Counted once the form is complete: malformed requests cannot use up a product's sessions for its buyers.
        const overProductLimit = await ctx.limits.sessions.byProduct(request, offer.product.id);
        if (overProductLimit) return refuse(reply, overProductLimit);
        const started = await ctx.services.checkout.startSession(scope, token, form.details);
        if (started.status === 'SESSION')
          return reply
            .header('cache-control', 'no-store')
            .send({ clientSecret: started.clientSecret, mode: started.mode, confirmUrl });
        if (started.status === 'DECLINED') return fail(402, 'PAYMENT_DECLINED', buyerText(tr, started.message));
        return reply.header('cache-control', 'no-store').send({ redirect: confirmUrl });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return fail(ERROR_STATUS[err.code], err.code, err.message);
      }
    },
  );
}
