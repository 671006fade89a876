import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuantityRefused, type Offer } from '../../../domain/catalog/index.ts';
import type { DueToday } from '../../../domain/checkout/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import type { CardEntry } from '../../../domain/payments/index.ts';
import type { PriceQuote } from '../../../domain/tax/index.ts';
import { customerLocality } from '../../customer-locality.ts';
import type { HttpApp } from '../../http-app.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import { sendPage, type Html } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import { buyerWords } from './checkout-buyer-words.ts';
import { isClosed, showClosedShop } from './checkout-closed.ts';
import { offerFailure, type CheckoutContext, type Params } from './checkout-context.ts';
import { embeddingOf, embeddingQuery, embedMessages, frameAncestorsOf, type Embedding } from './checkout-embedding.ts';
import { CHECKOUT_COUNTRIES } from './checkout-countries.ts';
import { buyerTranslator, explicitLocale, speechOf } from '../buyer-language.ts';
import { readPrefill, type CheckoutPrefill } from './checkout-url.ts';
import { checkoutForm, fieldMessages, type FieldErrors } from './checkout-views.ts';
import { vetCoupon } from './coupon-attempts.ts';
import { PRODUCT_HEADING_STYLE } from './product-heading.ts';
import { quantityMessage } from './checkout-seats.ts';

// The checkout page: its form, priced on the server, first shown and shown again after a submit that did not pay.

export type FormMessages = {
  /** The payment was declined: the overlay's script hears `failed` (docs/decisions.md §29). */
  declined?: boolean | undefined;
  error?: string | Html | undefined;
  notice?: string | undefined;
  fieldErrors?: FieldErrors | undefined;
};

/**
 * Two fields side by side keep their inputs on one line when one label wraps (a longer language): each
 * label takes the height its neighbour's needs, its text at the bottom.
 */
const FORM_STYLE =
  '.row>div{display:flex;flex-direction:column}.row>div>label{flex:1 0 auto;display:flex;align-items:flex-end}' +
  PRODUCT_HEADING_STYLE;

/** The form, priced for the prefill's country, ZIP code and coupon; a coupon that may not be used is left out and said why. */
export async function showForm(
  ctx: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope,
  offer: Offer,
  prefill: CheckoutPrefill,
  status: number,
  messages: FormMessages = {},
) {
  const locality = customerLocality(request, ctx.environment, { zip: prefill.zipCode, country: prefill.country });
  const productId = (request.params as Params).productId;
  const tr = buyerTranslator(request);
  if (prefill.coupon) {
    // A coupon that cannot be used (or may not be tried now): show the price without it, and say why.
    const verdict = await vetCoupon(ctx.services, request.ip, scope, offer.product.id, prefill.coupon);
    if (verdict.status !== 'valid') {
      messages = { ...messages, error: messages.error ?? buyerWords(tr, verdict.message) };
      prefill = { ...prefill, coupon: undefined };
      if (verdict.status === 'blocked') {
        status = 429;
        reply.header('retry-after', String(verdict.retryAfterSeconds));
      }
    }
  }
  const { quote, today, lasting } = await ctx.services.purchases.quote(
    scope,
    productId,
    locality,
    prefill.coupon,
    prefill.vatId,
    prefill.quantity,
  );
  const lockedEmail = offer.customized?.userMail ?? undefined;
  const embedding = embeddingOf(request);
  const cardEntry = ctx.services.payments.cardEntry(ctx.environment);
  const needsCard = today.card !== 'none';
  const token = randomBytes(18).toString('base64url');
  const failed = messages.declined ? { type: 'failed', status: 'DECLINED' } : null;
  const locale = explicitLocale(request);
  const scripts = formScripts({ cardEntry, embedding, failed, needsCard, offer, quote, today, productId, locale });
  return sendPage(reply, {
    status,
    title: offer.product.name,
    frameAncestors: frameAncestorsOf(embedding),
    speech: speechOf(tr),
    style: FORM_STYLE,
    body: checkoutForm(
      tr,
      {
        environment: ctx.environment,
        vendorName: await ctx.vendorName(scope),
        offer,
        quote,
        lasting,
        country: locality.country,
        countryEditable: locality.source !== 'ip',
        countries: CHECKOUT_COUNTRIES,
        quoteUrl: `${encodeURIComponent(productId)}/quote${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`,
        prefill: {
          ...prefill,
          email: lockedEmail ?? prefill.email,
          firstName: prefill.firstName ?? offer.customized?.userFirstName ?? undefined,
          lastName: prefill.lastName ?? offer.customized?.userLastName ?? undefined,
        },
        emailLocked: !!lockedEmail || !!(prefill.nonEditableEmail && prefill.email),
        token,
        cardEntry,
        needsCard,
        now: ctx.services.clock.now(scope),
        ...messages,
      },
      embedding.embedded,
    ),
    ...scripts,
    data: { ...scripts.data, 'opentill-field-messages': fieldMessages(tr) },
  });
}

/**
 * The page's scripts (src/http/pages/browser) and what they read: the overlay's messages (embed), the
 * form's own script and the processor's card element (processor-element), as the card is taken.
 */
function formScripts(page: {
  cardEntry: CardEntry;
  embedding: Embedding;
  /** What the overlay's script hears beyond `ready`: a declined payment. */
  failed: object | null;
  needsCard: boolean;
  offer: Offer;
  quote: PriceQuote;
  today: DueToday;
  productId: string;
  /** The buyer's explicit language (`?locale=`), which the page's own requests carry on. */
  locale: string | undefined;
}) {
  const { cardEntry, embedding, needsCard, offer, quote, today } = page;
  const embed = embedMessages(embedding, page.failed);
  const data: Record<string, unknown> = { ...embed.data };
  let script = embed.script ?? '';
  if (cardEntry.kind === 'browser') {
    script += pageScript('checkout-form');
    const mode = today.card;
    if (mode !== 'none') {
      data['opentill-processor'] = {
        publicKey: cardEntry.publicKey,
        mode,
        amount: quote.totalMinor,
        currency: quote.currency.toLowerCase(),
        saveForLater: offer.product.type !== 'ONETIME',
        sessionUrl: `${encodeURIComponent(page.productId)}/session${embeddingQuery(embedding, page.locale)}`,
      };
      script += pageScript('processor-element');
    }
  }
  return {
    data,
    // The form's own script: inline before the processor's (its Pay waits for a new price first), else a file of this origin, under the page's nonce.
    script: script || undefined,
    processorScript:
      cardEntry.kind === 'browser' && needsCard
        ? { url: cardEntry.scriptUrl, origins: cardEntry.origins }
        : { url: '../checkout.js', origins: [] },
  };
}

/** The checkout page of a product or customized link, and the form's script it loads. */
export function registerCheckoutPage(app: HttpApp, ctx: CheckoutContext) {
  // The checkout form's script (src/http/pages/browser/checkout-form.ts), the same for every product: the page's CSP allows it by nonce.
  app.get('/payment/checkout.js', { schema: { hide: true }, errorHandler: jsonErrorHandler }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(pageScript('checkout-form')),
  );

  app.get<{ Params: Params }>('/payment/product/:productId', { schema: { hide: true } }, async (request, reply) => {
    const found = await ctx.saleOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
    if ('failure' in found) return offerFailure(reply, found.failure);
    const { scope, offer } = found;
    if (isClosed(ctx)) return showClosedShop(ctx, request, reply, scope, offer);
    const prefill = readPrefill(request.query as Record<string, unknown>);
    try {
      return await showForm(ctx, request, reply, scope, offer, prefill, 200);
    } catch (err) {
      // A prefill that cannot be priced (an unknown sandbox country): show the form without it.
      if (err instanceof AppError && err.code === 'INVALID_INPUT') {
        const tr = buyerTranslator(request);
        // A preset quantity out of the product's range (docs/decisions.md §39): its minimum, and what to choose.
        if (err instanceof QuantityRefused)
          return showForm(ctx, request, reply, scope, offer, { ...prefill, quantity: undefined }, 400, {
            fieldErrors: { quantity: quantityMessage(tr, offer) },
          });
        return showForm(ctx, request, reply, scope, offer, { ...prefill, country: undefined }, 400, {
          error: buyerWords(tr, err.message),
        });
      }
      throw err;
    }
  });
}
