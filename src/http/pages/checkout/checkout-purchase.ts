import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuantityRefused, type Offer } from '../../../domain/catalog/index.ts';
import { BusinessDetailsError, type CheckoutOutcome } from '../../../domain/checkout/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Scope } from '../../../domain/model.ts';
import { SaleRefused } from '../../../domain/production-access.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage } from '../layout.ts';
import { isClosed, showClosedShop } from './checkout-closed.ts';
import { showPending, showReceipt } from './checkout-confirm.ts';
import { offerFailure, type CheckoutContext, type Params } from './checkout-context.ts';
import { embeddingOf, frameAncestorsOf } from './checkout-embedding.ts';
import { formOf, readCheckoutForm, type CheckoutForm, type PurchaseDetails } from './checkout-form.ts';
import { showForm, type FormMessages } from './checkout-page.ts';
import type { CheckoutPrefill } from './checkout-url.ts';
import { buyerWords } from './checkout-buyer-words.ts';
import { buyerTranslator, explicitLocale, speechOf } from '../buyer-language.ts';
import { fieldMessages, tryAgain } from './checkout-views.ts';
import type { Translator } from '../../../i18n/index.ts';
import { vetCoupon } from './coupon-attempts.ts';
import { quantityMessage } from './checkout-seats.ts';

// Pay: the form posted to the page itself. Without JavaScript this is the whole checkout; with it, the
// processor's card element has confirmed the payment first and this books what needs no card in the browser.

// The database away (or opentill still starting): a page to send the form again in a moment, as typed (the card aside).
const whileUnavailable = (request: FastifyRequest, reply: FastifyReply) => {
  const tr = buyerTranslator(request);
  return sendPage(reply, {
    status: 503,
    title: tr.t('checkout.unavailableTitle'),
    frameAncestors: frameAncestorsOf(embeddingOf(request)),
    speech: speechOf(tr),
    body: tryAgain(tr, formOf(request)),
  });
};

export function registerPurchase(app: HttpApp, ctx: CheckoutContext) {
  app.post<{ Params: Params; Body: FormBody }>(
    '/payment/product/:productId',
    { schema: { hide: true }, config: { whileUnavailable } },
    async (request, reply) => {
      const found = await ctx.offerOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
      if ('failure' in found) return offerFailure(reply, found.failure);
      const { scope, offer } = found;
      // No processor takes payments here: the closed shop, before anything typed is looked at.
      if (isClosed(ctx)) return showClosedShop(ctx, request, reply, scope, offer);
      const form = readCheckoutForm(request, ctx.environment, offer);
      const prefill = form.prefill;
      const tr = buyerTranslator(request);
      const show = (status: number, messages?: FormMessages, shown: CheckoutPrefill = prefill) =>
        showForm(ctx, request, reply, scope, offer, shown, status, messages);
      // A coupon typed after the price was shown: show the new price first, charge on the next submit.
      if (form.couponChanged)
        return show(
          200,
          prefill.coupon ? { notice: tr.t('checkout.couponApplied', { code: prefill.coupon.toUpperCase() }) } : {},
        );
      const token = form.token;
      if (token === undefined) return show(400, { error: tr.t('checkout.errorFormExpired') });
      if (prefill.coupon) {
        // The coupon shown with the price is checked (and limited) again: the form is the customer's to change.
        const verdict = await vetCoupon(ctx.services, request.ip, scope, offer.product.id, prefill.coupon);
        if (verdict.status === 'blocked') reply.header('retry-after', String(verdict.retryAfterSeconds));
        if (verdict.status !== 'valid')
          return show(
            verdict.status === 'blocked' ? 429 : 400,
            { error: buyerWords(tr, verdict.message) },
            { ...prefill, coupon: undefined },
          );
      }

      try {
        const cardEntry = ctx.services.payments.cardEntry(ctx.environment);
        // opentill's own card form has its card checked with the rest; the processor's card field checks its own.
        const fieldErrors = cardEntry.kind === 'form' ? { ...form.fieldErrors, ...form.cardErrors } : form.fieldErrors;
        if (Object.keys(fieldErrors).length > 0) {
          const error = tr.t(form.resumed ? 'checkout.errorResumed' : 'checkout.errorFix');
          return show(400, { error, fieldErrors });
        }
        if (form.details instanceof AppError) throw form.details;
        if (cardEntry.kind === 'none') return showClosedShop(ctx, request, reply, scope, offer);
        const outcome = await charge(ctx, scope, token, form, form.details, cardEntry.kind);
        if (outcome === 'NEEDS_BROWSER') return show(400, { error: tr.t('checkout.cardNeedsScript') });
        if (outcome.status === 'PENDING')
          return showPending(
            ctx,
            reply,
            scope,
            offer,
            `${encodeURIComponent(request.params.productId)}/confirm/${encodeURIComponent(token)}`,
            explicitLocale(request),
          );
        if (outcome.status === 'DECLINED')
          return await show(402, {
            declined: true,
            error: tr.html('checkout.errorDeclined', { reason: buyerWords(tr, outcome.message) }),
          });
        return await showReceipt(ctx, request, reply, scope, offer, outcome);
      } catch (err) {
        return purchaseFailure(ctx, request, reply, { scope, offer, prefill, tr }, err);
      }
    },
  );
}

/** One token, one payment: a second submit of the same form shows the first outcome. */
async function charge(
  ctx: CheckoutContext,
  scope: Scope,
  token: string,
  form: CheckoutForm,
  details: PurchaseDetails,
  cardEntry: 'form' | 'browser',
): Promise<CheckoutOutcome | 'NEEDS_BROWSER'> {
  // In opentill's own card form the card was checked with the other fields: there is one when none of them is marked.
  if (cardEntry === 'form') return ctx.services.checkout.pay(scope, token, { ...details, card: form.card });
  // The processor's card field runs in the browser; without JavaScript only a purchase with nothing to pay and no card to keep goes through.
  const started = await ctx.services.checkout.payWithoutBrowser(scope, token, details);
  return started.status === 'NEEDS_BROWSER' ? 'NEEDS_BROWSER' : started;
}

/** What the customer is told when the purchase was refused: the form again, as typed, with why (nothing was charged). */
function purchaseFailure(
  ctx: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  { scope, offer, prefill, tr }: { scope: Scope; offer: Offer; prefill: CheckoutPrefill; tr: Translator },
  err: unknown,
) {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'LINK_EXPIRED' || err.code === 'NOT_FOUND' || err instanceof SaleRefused)
    return offerFailure(reply, err);
  const show = (status: number, messages: FormMessages) =>
    showForm(ctx, request, reply, scope, offer, prefill, status, messages);
  // Another country, ZIP code or coupon than the price shown was for (a page without its script): show the new price, charge nothing.
  if (err.code === 'PRICE_CHANGED') return show(409, { error: tr.t('checkout.errorPriceChanged') });
  if (err instanceof BusinessDetailsError)
    return show(400, { error: tr.t('checkout.errorFix'), fieldErrors: { [err.field]: buyerWords(tr, err.message) } });
  if (err instanceof QuantityRefused)
    return showForm(ctx, request, reply, scope, offer, { ...prefill, quantity: undefined }, 400, {
      error: tr.t('checkout.errorFix'),
      fieldErrors: { quantity: quantityMessage(tr, offer) },
    });
  if (err.code === 'INVALID_EMAIL')
    return show(400, { error: buyerWords(tr, err.message), fieldErrors: { email: fieldMessages(tr).email } });
  // Unavailable for a moment (the database, the payment network): the form again, as typed, with when to press Pay again.
  if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
  if (err.code === 'SERVICE_UNAVAILABLE') return show(503, { error: tr.t('checkout.errorUnavailable') });
  return show(ERROR_STATUS[err.code], { error: otherFailure(tr, err.message) });
}

/** A refusal the checkout has no words of its own for: a known sentence translated, else a line of ours and the sentence marked English. */
function otherFailure(tr: Translator, message: string) {
  const said = buyerWords(tr, message);
  return typeof said === 'string' ? said : html`${tr.t('checkout.errorOther')} ${said}`;
}
