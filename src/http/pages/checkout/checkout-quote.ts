import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuantityRefused, type Offer } from '../../../domain/catalog/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import { isEuCountry } from '../../../domain/tax/index.ts';
import { customerLocality } from '../../customer-locality.ts';
import type { HttpApp } from '../../http-app.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import type { CheckoutContext, Params } from './checkout-context.ts';
import { US_ZIP } from './checkout-form.ts';
import { jsonFailure, jsonOffer, refuse } from './checkout-json.ts';
import type { Translator } from '../../../i18n/index.ts';
import { buyerText } from './checkout-buyer-words.ts';
import { countryName } from './checkout-countries.ts';
import { payLabel, priceLines } from './checkout-price-lines.ts';
import { buyerTranslator } from '../buyer-language.ts';
import { vetCoupon } from './coupon-attempts.ts';
import { quantityMessage } from './checkout-seats.ts';

type Failure = [status: number, error: string, message: string];

/** The quote's query: country, ZIP code, coupon and VAT ID, each trimmed text ('' when absent), or why it cannot be priced. */
function readQuoteQuery(
  query: Record<string, unknown>,
  tr: Translator,
): { country: string; zipCode: string; couponCode: string; vatId: string; quantity: string } | Failure {
  const text = (name: string): string | null => {
    const value = Array.isArray(query[name]) ? (query[name] as unknown[]).at(-1) : query[name];
    if (value === undefined) return '';
    return typeof value === 'string' ? value.trim() : null;
  };
  const [country, zipCode, couponCode, vatId] = [text('country'), text('zipCode'), text('coupon'), text('vatId')];
  if (country === null || (country !== '' && !/^[A-Za-z]{2}$/.test(country)))
    return [400, 'INVALID_INPUT', 'country must be a two-letter ISO 3166-1 code, such as DE.'];
  if (zipCode === null || zipCode.length > 16 || !/^[A-Za-z0-9 -]*$/.test(zipCode))
    return [400, 'INVALID_INPUT', tr.t('checkout.fieldZipCode')];
  if (couponCode === null || couponCode.length > 64)
    return [400, 'INVALID_INPUT', 'coupon must be a code of at most 64 characters.'];
  if (vatId === null || vatId.length > 24)
    return [400, 'INVALID_INPUT', 'vatId must be a VAT ID of at most 24 characters.'];
  const quantity = text('quantity');
  if (quantity === null || quantity.length > 9)
    return [400, 'INVALID_INPUT', 'quantity must be a whole number of seats.'];
  return { country, zipCode, couponCode, vatId, quantity };
}

/**
 * The price for a country, ZIP code and coupon, from the one pricing function: what the checkout's
 * script shows when the buyer changes them, and the total it then expects. `{error, message, field}` on bad input.
 */
export function registerQuote(app: HttpApp, ctx: CheckoutContext) {
  app.get<{ Params: Params }>(
    '/payment/product/:productId/quote',
    { schema: { hide: true }, errorHandler: jsonErrorHandler },
    async (request, reply) => {
      const fail = jsonFailure(reply);
      const found = await jsonOffer(request, reply, ctx.limits.quotes, ctx.offerOf);
      if (!('offer' in found)) return found;
      const { scope, offer } = found;
      const tr = buyerTranslator(request);
      const asked = readQuoteQuery(request.query as Record<string, unknown>, tr);
      if (Array.isArray(asked)) return fail(...asked);
      const { country, zipCode, couponCode, vatId, quantity } = asked;
      let locality;
      try {
        locality = customerLocality(request, ctx.environment, {
          zip: zipCode || undefined,
          country: country || undefined,
        });
      } catch (err) {
        if (err instanceof AppError) return fail(400, err.code, tr.t('checkout.fieldCountry'));
        throw err;
      }
      if (zipCode && locality.country === 'US' && !US_ZIP.test(zipCode))
        return fail(400, 'INVALID_INPUT', tr.t('checkout.fieldZipCode'));
      // Counted once the request is valid: garbage cannot use up a product's quotes for its buyers.
      const overProductLimit = await ctx.limits.quotes.byProduct(request, offer.product.id);
      if (overProductLimit) return refuse(reply, overProductLimit);
      let coupon: string | undefined = couponCode || undefined;
      let couponError: string | undefined;
      if (coupon) {
        // The same guess limit as the page's: a quote is no way around it.
        const verdict = await vetCoupon(ctx.services, request.ip, scope, offer.product.id, coupon);
        if (verdict.status === 'blocked') {
          reply.header('retry-after', String(verdict.retryAfterSeconds));
          return fail(429, 'RATE_LIMITED', buyerText(tr, verdict.message));
        }
        if (verdict.status !== 'valid') [coupon, couponError] = [undefined, buyerText(tr, verdict.message)];
      }
      try {
        return await sendQuote(ctx, request, reply, tr, {
          scope,
          offer,
          locality,
          coupon,
          couponError,
          vatId,
          quantity,
        });
      } catch (err) {
        // Seats out of the product's range (docs/decisions.md §39): what to choose, in the buyer's words.
        if (err instanceof QuantityRefused) return fail(400, 'INVALID_INPUT', quantityMessage(tr, offer));
        throw err;
      }
    },
  );
}

/** The price, and what the form shows with it (its lines, the Pay button's label, the fields marked). */
async function sendQuote(
  ctx: CheckoutContext,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  tr: Translator,
  asked: {
    scope: Scope;
    offer: Offer;
    locality: ReturnType<typeof customerLocality>;
    coupon: string | undefined;
    couponError: string | undefined;
    vatId: string;
    quantity: string;
  },
) {
  const { scope, offer, locality, coupon, couponError } = asked;
  const { quote, business, lasting } = await ctx.services.purchases.quote(
    scope,
    request.params.productId,
    locality,
    coupon,
    asked.vatId || undefined,
    asked.quantity || undefined,
  );
  // A VAT ID that is not of an EU buyer's country is marked (the purchase would refuse it); outside the EU it is kept without reverse charge.
  const vatIdError =
    business && !business.valid && isEuCountry(locality.country)
      ? buyerText(tr, `VAT ID: ${business.reason}`)
      : undefined;
  return reply.header('cache-control', 'no-store').send({
    country: locality.country,
    countryName: countryName(tr, locality.country),
    currency: quote.currency,
    netMinor: quote.netMinor,
    discountMinor: quote.discountMinor,
    taxMinor: quote.taxMinor,
    totalMinor: quote.totalMinor,
    taxRate: quote.taxRate,
    taxName: quote.taxName,
    coupon: coupon?.toUpperCase() ?? null,
    ...(couponError ? { couponError } : {}),
    ...(vatIdError ? { vatIdError } : {}),
    reverseCharge: business?.reverseCharge ?? false,
    taxEstimated: quote.taxEstimated ?? false,
    quantity: quote.quantity ?? 1,
    payLabel: payLabel(tr, offer, quote),
    html: priceLines(tr, offer, quote, ctx.services.clock.now(scope), lasting).text,
  });
}
