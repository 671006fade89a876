import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import type { Scope } from '../../../domain/model.ts';
import { html, sendPage } from '../layout.ts';
import type { CheckoutContext } from './checkout-context.ts';
import { embeddingOf, embedMessages, frameAncestorsOf } from './checkout-embedding.ts';
import { bold } from './checkout-receipt.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';
import { header } from './checkout-views.ts';

/**
 * The closed shop (docs/decisions.md §29): no payment processor takes this environment's payments
 * (production before the operator configures Stripe), so the buyer is told so before any field, in a
 * buyer's words, instead of filling the form to be refused at Pay. What the operator must do goes to
 * the log (and the panel, /healthz and `opentill doctor`), never in front of the buyer. In the
 * overlay it still says `ready`, so the vendor's page shows it and the buyer closes it there.
 */
export function isClosed(ctx: CheckoutContext): boolean {
  return ctx.services.payments.cardEntry(ctx.environment).kind === 'none';
}

export async function showClosedShop(
  ctx: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope,
  offer: Offer,
) {
  request.log.warn(
    { vendorId: scope.vendorId, environment: ctx.environment, productId: offer.product.id },
    `checkout closed: ${ctx.services.payments.describe(ctx.environment).detail}`,
  );
  const embedding = embeddingOf(request);
  const tr = buyerTranslator(request);
  return sendPage(reply, {
    status: 503,
    title: tr.t('checkout.closedShort'),
    frameAncestors: frameAncestorsOf(embedding),
    speech: speechOf(tr),
    body: html`${header(tr, { vendorName: await ctx.vendorName(scope) }, embedding.embedded)}
<h1>${tr.t('checkout.closedTitle')}</h1>
<div class="box" role="status" id="closed"><p>${tr.html('checkout.closedText', { product: offer.product.name }, { b: bold })}</p>
<p>${tr.t('checkout.closedNote')}</p></div>`,
    ...embedMessages(embedding),
  });
}
