import type { FastifyReply } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Environment, Scope } from '../../../domain/model.ts';
import { requireOnSale } from '../../../domain/catalog/index.ts';
import { SaleRefused } from '../../../domain/production-access.ts';
import type { Services } from '../../../services.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { html, sendPage, type Html } from '../layout.ts';
import { buyerTranslator, speechOf } from '../buyer-language.ts';
import { embeddingOf, embedMessages, frameAncestorsOf } from './checkout-embedding.ts';
import { checkoutLimits, type CheckoutLimits } from './checkout-limits.ts';
import { header } from './checkout-views.ts';

/** The path of every checkout route: /payment/product/{productId}…, a product's id or a customized link's. */
export type Params = { productId: string };

/** What the checkout's routes share: one environment's services and limits, and the offer behind a link. */
export interface CheckoutContext {
  services: Services;
  environment: Environment;
  limits: CheckoutLimits;
  /** The product (or customized link) the checkout sells, with the vendor's scope it is priced and charged in. */
  offerOf(productId: string): Promise<{ scope: Scope; offer: Offer }>;
  /**
   * The offer, if its vendor's checkout may start a new purchase now (docs/decisions.md §24): what the
   * form's page asks, so a buyer is told before typing anything. Its purchases ask again in the domain;
   * a receipt or a payment under way is shown whatever the vendor's state now.
   */
  saleOf(productId: string): Promise<{ scope: Scope; offer: Offer }>;
  /** The seller's name as its invoices carry it (Settings), else the vendor's account name. */
  vendorName(scope: Scope): Promise<string>;
}

export function checkoutContext(app: HttpApp, { services, environment }: EnvironmentContext): CheckoutContext {
  const offerOf = async (productId: string) => {
    const scope = await services.catalog.ownerOf(productId, environment);
    return { scope, offer: await services.catalog.resolveOffer(scope, productId) };
  };
  return {
    services,
    environment,
    limits: checkoutLimits(app, services.config, environment),
    offerOf,
    async saleOf(productId) {
      const found = await offerOf(productId);
      await services.catalog.requireOpenForSale(found.scope);
      // Before the page is built: the buyer reads that it is no longer sold, not a generic refusal.
      requireOnSale(found.offer.product);
      return found;
    },
    async vendorName(scope) {
      const vendor = await services.catalog.findVendor(scope.vendorId);
      return vendor?.sellerName ?? vendor?.name ?? '';
    },
  };
}

/**
 * The problem page, framed only where the checkout itself may be. In the overlay it has the Close button
 * and tells the vendor's page `ready` (and `message`, a declined payment's `failed`), so the buyer reads
 * it there instead of being sent to it as a full page after 8 s.
 */
export function problemPage(
  reply: FastifyReply,
  status: number,
  title: string,
  text: string | Html,
  message: object | null = null,
  more: Html = html``,
) {
  const embedding = embeddingOf(reply.request);
  const tr = buyerTranslator(reply.request);
  return sendPage(reply, {
    status,
    title,
    frameAncestors: frameAncestorsOf(embedding),
    speech: speechOf(tr),
    body: html`${embedding.embedded ? header(tr, { vendorName: '' }, true) : ''}<h1>${title}</h1><p>${text}</p>${more}`,
    ...embedMessages(embedding, message),
  });
}

/** Page-level failures that are not the form's fault: unknown product, expired link, a seller not selling now. */
export function offerFailure(reply: FastifyReply, err: unknown) {
  const tr = buyerTranslator(reply.request);
  if (err instanceof SaleRefused) {
    const key = SALE_REFUSED[err.reason];
    // What the seller must set is for the seller trying their own link: said as the domain says it, in English.
    const detail = err.reason === 'IDENTITY_INCOMPLETE' ? html`<p class="muted" lang="en">${err.message}</p>` : html``;
    return problemPage(reply, 403, tr.t(`checkout.${key}Title`), tr.t(`checkout.${key}Text`), null, detail);
  }
  if (err instanceof AppError && err.code === 'LINK_EXPIRED')
    return problemPage(reply, 410, tr.t('checkout.expiredTitle'), tr.t('checkout.expiredText'));
  if (err instanceof AppError && err.code === 'NOT_FOUND')
    return problemPage(reply, 404, tr.t('checkout.notFoundTitle'), tr.t('checkout.notFoundText'));
  throw err;
}

/** The words of each reason a sale is refused (checkout.<key>Title, checkout.<key>Text). */
const SALE_REFUSED: Record<SaleRefused['reason'], string> = {
  SUSPENDED: 'suspended',
  IDENTITY_INCOMPLETE: 'identity',
  ARCHIVED: 'archived',
};
