import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import type { LedgerEntry, Scope, Transaction } from '../../../domain/model.ts';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { HttpApp } from '../../http-app.ts';
import { html, sendPage } from '../layout.ts';
import { pageScript } from '../page-scripts.ts';
import { offerFailure, problemPage, type CheckoutContext, type Params } from './checkout-context.ts';
import { embeddingOf, embeddingQuery, embedMessages, frameAncestorsOf } from './checkout-embedding.ts';
import { isFormToken } from './checkout-form.ts';
import { receipt } from './checkout-views.ts';

// After Pay: the receipt, or the page that waits for the card network's answer and asks again by itself.

/** The receipt's link to the payment's invoice, relative to `/payment/product/{id}` so it works behind any host name. */
function invoicePath(entries: readonly LedgerEntry[], levels = 2): string | null {
  const payment = entries.find(isPayment);
  return payment ? `${'../'.repeat(levels)}invoice/${encodeURIComponent(payment.hashId)}` : null;
}

export async function showReceipt(
  ctx: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope,
  offer: Offer,
  paid: { transaction: Transaction; entries: LedgerEntry[]; licence: string | null },
  /** How far the page is below the root of its environment: 2 for /payment/product/{id}. */
  levels = 2,
) {
  const embedding = embeddingOf(request);
  return sendPage(reply, {
    status: 200,
    title: 'Thank you',
    frameAncestors: frameAncestorsOf(embedding),
    body: receipt(
      {
        vendorName: await ctx.vendorName(scope),
        offer,
        transaction: paid.transaction,
        licence: paid.licence,
        invoicePath: invoicePath(paid.entries, levels),
        locale: localeFromAcceptLanguage(request.headers['accept-language']),
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
) {
  // In the overlay, the confirmation page is framed and talks to the parent like the form was.
  const embedding = embeddingOf(reply.request);
  const url = confirmPath + embeddingQuery(embedding);
  return sendPage(reply, {
    status: 202,
    title: 'Confirming your payment',
    frameAncestors: frameAncestorsOf(embedding),
    // Asks again by script (a timed meta refresh is an accessibility failure, WCAG 2.2.1), by meta refresh without JavaScript.
    body: html`<noscript><meta http-equiv="refresh" content="3;url=${url}"></noscript><p class="muted">${await ctx.vendorName(scope)}</p><h1>Confirming your payment</h1>
<div class="box" role="status"><p>Your payment for <strong>${offer.product.name}</strong> is on its way, but the card network has not confirmed it yet.</p>
<p>This page checks again every few seconds and shows your receipt as soon as it is confirmed. You do not need to pay again.</p></div>
<p><a href="${url}" id="check-now">Check now</a></p>`,
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
      if (!outcome)
        return problemPage(
          reply,
          404,
          'Payment not found',
          'There is no payment for this link. Open the payment page again.',
        );
      // This page is /payment/product/{id}/confirm/{token}: it refreshes itself, and its links go two levels further up.
      if (outcome.status === 'PENDING') return showPending(ctx, reply, scope, offer, encodeURIComponent(token));
      if (outcome.status === 'DECLINED')
        return problemPage(
          reply,
          402,
          'The payment was declined',
          `${outcome.message} Nothing was charged; open the payment page again to use another card.`,
          { type: 'failed', status: 'DECLINED' },
        );
      return showReceipt(ctx, request, reply, scope, offer, outcome, 4);
    },
  );
}
