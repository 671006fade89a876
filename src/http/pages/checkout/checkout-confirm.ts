import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import type { LedgerEntry, PaymentMethod, Scope, Transaction } from '../../../domain/model.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { HttpApp } from '../../http-app.ts';
import { html, sendPage } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import { offerFailure, problemPage, type CheckoutContext, type Params } from './checkout-context.ts';
import { embeddingOf, embeddingQuery, embedMessages, frameAncestorsOf } from './checkout-embedding.ts';
import { isFormToken } from './checkout-form.ts';
import { buyerWords } from './checkout-buyer-words.ts';
import { bold, receipt, RECEIPT_STYLE } from './checkout-receipt.ts';
import { buyerTranslator, explicitLocale, speechOf } from '../buyer-language.ts';

// After Pay: the receipt, or the page that waits for the card network's answer and asks again by itself.

/** The receipt's link to the payment's invoice, relative to `/payment/product/{id}` so it works behind any host name. */
function invoicePath(entries: readonly LedgerEntry[], levels = 2): string | null {
  const payment = entries.find(isPayment);
  return payment ? `${'../'.repeat(levels)}invoice/${encodeURIComponent(payment.hashId)}` : null;
}

/** The receipt's way to the management page, for an hour (as the API's), while the purchase is new (docs/decisions.md §33). */
function manageUrl(ctx: CheckoutContext, scope: Scope, transaction: Transaction, locale: string): string | null {
  // An old receipt page found again (a shared computer's history) mints no new link: the seller's e-mails carry one.
  const age = ctx.services.clock.now(scope).getTime() - Date.parse(transaction.createdAt);
  if (!(age < RECEIPT_LINK_WINDOW_MS)) return null;
  const url = ctx.services.hostedUrl('manage', scope, transaction.email.toLowerCase());
  return `${url}?locale=${encodeURIComponent(locale)}`;
}

/** How long after a purchase its receipt still carries a fresh management link. */
export const RECEIPT_LINK_WINDOW_MS = 24 * 3600_000;

export async function showReceipt(
  ctx: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope,
  offer: Offer,
  paid: { transaction: Transaction; entries: LedgerEntry[]; licence: string | null; method: PaymentMethod | null },
  /** How far the page is below the root of its environment: 2 for /payment/product/{id}. */
  levels = 2,
) {
  const embedding = embeddingOf(request);
  // The language the purchase was made in, unless this request chooses one.
  const tr = buyerTranslator(request, paid.transaction.locale);
  return sendPage(reply, {
    status: 200,
    title: tr.t('checkout.thankYou'),
    frameAncestors: frameAncestorsOf(embedding),
    style: RECEIPT_STYLE,
    speech: speechOf(tr),
    body: receipt(
      tr,
      {
        vendorName: await ctx.vendorName(scope),
        transaction: paid.transaction,
        licence: paid.licence,
        invoicePath: invoicePath(paid.entries, levels),
        method: paid.method,
        manageUrl: manageUrl(ctx, scope, paid.transaction, tr.locale),
      },
      embedding.embedded,
    ),
    ...embedMessages(embedding, { type: 'paid', transactionId: paid.transaction.id, status: paid.transaction.status }),
  });
}

/**
 * The payment's answer is not known yet (the card network timed out or its answer was lost): a
 * page that says so and asks again by itself, at the form's own confirmation URL. Pressing Pay
 * again on the same form finds the same attempt, so it never starts a second charge.
 */
export async function showPending(
  ctx: CheckoutContext,
  reply: FastifyReply,
  scope: Scope,
  offer: Offer,
  confirmPath: string,
  locale: string | undefined,
) {
  // In the overlay, the confirmation page is framed and talks to the parent like the form was.
  const embedding = embeddingOf(reply.request);
  const url = confirmPath + embeddingQuery(embedding, locale);
  const tr = buyerTranslator(reply.request);
  return sendPage(reply, {
    status: 202,
    title: tr.t('checkout.confirmingTitle'),
    frameAncestors: frameAncestorsOf(embedding),
    speech: speechOf(tr),
    // Asks again by script (a timed meta refresh is an accessibility failure, WCAG 2.2.1), by meta refresh without JavaScript.
    body: html`<noscript><meta http-equiv="refresh" content="3;url=${url}"></noscript><p class="muted">${await ctx.vendorName(scope)}</p><h1>${tr.t('checkout.confirmingTitle')}</h1>
<div class="box" role="status"><p>${tr.html('checkout.confirmingText', { product: offer.product.name }, { b: bold })}</p>
<p>${tr.t('checkout.confirmingNote')}</p></div>
<p><a href="${url}" id="check-now">${tr.t('checkout.checkNow')}</a></p>`,
    script: pageScript('confirming'),
  });
}

/** The form's confirmation URL, where a payment still on its way is asked about again: the receipt once it is known. */
export function registerConfirm(app: HttpApp, ctx: CheckoutContext) {
  app.get<{ Params: Params & { token: string } }>(
    '/payment/product/:productId/confirm/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await ctx.offerOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
      if ('failure' in found) return offerFailure(reply, found.failure);
      const { scope, offer } = found;
      const token = request.params.token;
      // Only this product's form's payment: another's receipt is never shown (nor announced to an embedding page) as this one's.
      const outcome = isFormToken(token)
        ? await ctx.services.checkout.status(scope, token, request.params.productId)
        : undefined;
      const tr = buyerTranslator(request);
      if (!outcome)
        return problemPage(reply, 404, tr.t('checkout.paymentNotFoundTitle'), tr.t('checkout.paymentNotFoundText'));
      // This page is /payment/product/{id}/confirm/{token}: it refreshes itself, and its links go two levels further up.
      if (outcome.status === 'PENDING')
        return showPending(ctx, reply, scope, offer, encodeURIComponent(token), explicitLocale(request));
      if (outcome.status === 'DECLINED')
        return problemPage(
          reply,
          402,
          tr.t('checkout.declinedTitle'),
          tr.html('checkout.declinedText', { reason: buyerWords(tr, outcome.message) }),
          { type: 'failed', status: 'DECLINED' },
        );
      return showReceipt(ctx, request, reply, scope, offer, outcome, 4);
    },
  );
}
