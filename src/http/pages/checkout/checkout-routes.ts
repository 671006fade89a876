import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Offer } from '../../../domain/catalog.ts';
import { isPayment } from '../../../domain/ledger.ts';
import type { LedgerEntry, Scope, Transaction } from '../../../domain/model.ts';
import { KNOWN_COUNTRIES } from '../../../domain/tax-rates.ts';
import { customerLocality } from '../../customer-locality.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { sendPage, sendProblem } from '../layout.ts';
import { readPrefill, type CheckoutPrefill } from './checkout-url.ts';
import { checkoutForm, receipt } from './checkout-views.ts';

/**
 * The hosted checkout at {hosted_url}/payment/product/{id}: a server-rendered form that works
 * without JavaScript, priced on the server. Submitting charges through the same purchase code as
 * the API's tools; the form's one-time token is an idempotency key, so a double submit (or a
 * reload of the POST) never pays twice, and the total the customer saw must be the total charged.
 */
type Params = { productId: string };

/** Inside the widget's iframe: tell the parent page what happened, and let the customer close. */
const EMBED_SCRIPT = (message: object | null) => `(function(){var p=window.parent;if(p===window)return;
function send(m){p.postMessage(Object.assign({source:'opentill'},m),'*')}
send({type:'ready'});${message ? `send(${JSON.stringify(message)});` : ''}
var c=document.getElementById('close');if(c)c.addEventListener('click',function(){send({type:'close'})});
document.addEventListener('keydown',function(e){if(e.key==='Escape')send({type:'close'})});})();`;

/** The receipt's link to the payment's invoice, relative to `/payment/product/{id}` so it works behind any host name. */
function invoicePath(entries: readonly LedgerEntry[]): string | null {
  const payment = entries.find(isPayment);
  return payment ? `../../invoice/${encodeURIComponent(payment.hashId)}` : null;
}

export function registerCheckout(app: HttpApp, { services, environment }: EnvironmentContext) {
  const vendorName = async (scope: Scope) => (await services.catalog.findVendor(scope.vendorId))?.name ?? '';
  const embeddedOf = (request: FastifyRequest) => (request.query as Record<string, unknown>).embedded === '1';

  async function showForm(
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    offer: Offer,
    prefill: CheckoutPrefill,
    status: number,
    messages: { error?: string | undefined; notice?: string | undefined } = {},
  ) {
    const locality = customerLocality(request, environment, { zip: prefill.zipCode, country: prefill.country });
    const productId = (request.params as Params).productId;
    let priced;
    try {
      priced = await services.purchases.quote(scope, productId, locality, prefill.coupon);
    } catch (err) {
      // A coupon that cannot be used: show the price without it, and say why.
      if (!(err instanceof AppError) || err.code !== 'INVALID_INPUT' || !prefill.coupon) throw err;
      priced = await services.purchases.quote(scope, productId, locality);
      messages = { error: messages.error ?? err.message };
      prefill = { ...prefill, coupon: undefined };
    }
    const { quote } = priced;
    const lockedEmail = offer.customized?.userMail ?? undefined;
    const embedded = embeddedOf(request);
    return sendPage(reply, {
      status,
      title: offer.product.name,
      frameAncestors: '*',
      body: checkoutForm(
        {
          environment,
          vendorName: await vendorName(scope),
          offer,
          quote,
          country: locality.country,
          countryEditable: environment === 'sandbox' || locality.source === 'fallback',
          countries: KNOWN_COUNTRIES,
          prefill: {
            ...prefill,
            email: lockedEmail ?? prefill.email,
            firstName: prefill.firstName ?? offer.customized?.userFirstName ?? undefined,
            lastName: prefill.lastName ?? offer.customized?.userLastName ?? undefined,
          },
          emailLocked: !!lockedEmail || !!(prefill.nonEditableEmail && prefill.email),
          token: randomBytes(18).toString('base64url'),
          ...messages,
        },
        embedded,
      ),
      script: embedded ? EMBED_SCRIPT(null) : undefined,
    });
  }

  const problemPage = (reply: FastifyReply, status: number, title: string, text: string) => sendProblem(reply, status, title, text, '*');

  const showReceipt = async (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    offer: Offer,
    paid: { transaction: Transaction; entries: LedgerEntry[]; licence: string | null },
  ) => {
    const embedded = embeddedOf(request);
    return sendPage(reply, {
      status: 200,
      title: 'Thank you',
      frameAncestors: '*',
      body: receipt(
        { vendorName: await vendorName(scope), offer, transaction: paid.transaction, licence: paid.licence, invoicePath: invoicePath(paid.entries) },
        embedded,
      ),
      script: embedded ? EMBED_SCRIPT({ type: 'paid', transactionId: paid.transaction.id }) : undefined,
    });
  };

  const offerOf = async (productId: string): Promise<{ scope: Scope; offer: Offer }> => {
    const scope = await services.catalog.ownerOf(productId, environment);
    return { scope, offer: await services.catalog.resolveOffer(scope, productId) };
  };

  /** Page-level failures that are not the form's fault: unknown product, expired link. */
  function offerFailure(reply: FastifyReply, err: unknown) {
    if (err instanceof AppError && err.code === 'LINK_EXPIRED') return problemPage(reply, 410, 'This link has expired', err.message);
    if (err instanceof AppError && err.code === 'NOT_FOUND')
      return problemPage(reply, 404, 'Product not found', 'This payment link does not lead to a product. Check the link, or ask the seller for a new one.');
    throw err;
  }

  app.get<{ Params: Params }>('/payment/product/:productId', { schema: { hide: true } }, async (request, reply) => {
    const found = await offerOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
    if ('failure' in found) return offerFailure(reply, found.failure);
    const { scope, offer } = found;
    const prefill = readPrefill(request.query as Record<string, unknown>);
    try {
      return await showForm(request, reply, scope, offer, prefill, 200);
    } catch (err) {
      // A prefill that cannot be priced (an unknown sandbox country): show the form without it.
      if (err instanceof AppError && err.code === 'INVALID_INPUT')
        return showForm(request, reply, scope, offer, { ...prefill, country: undefined }, 400, { error: err.message });
      throw err;
    }
  });

  app.post<{ Params: Params; Body: FormBody }>('/payment/product/:productId', { schema: { hide: true } }, async (request, reply) => {
    const found = await offerOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
    if ('failure' in found) return offerFailure(reply, found.failure);
    const { scope, offer } = found;
    const form: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
    const prefill: CheckoutPrefill = {
      ...readPrefill(request.query as Record<string, unknown>),
      email: form.email,
      firstName: form.firstName,
      lastName: form.lastName,
      zipCode: form.zipCode,
      payload: form.payload,
      coupon: form.coupon?.trim() || undefined,
      country: form.country,
    };
    // A coupon typed after the price was shown: show the new price first, charge on the next submit.
    if ((prefill.coupon ?? '').toUpperCase() !== (form.appliedCoupon ?? '').toUpperCase()) {
      return showForm(
        request,
        reply,
        scope,
        offer,
        prefill,
        200,
        prefill.coupon ? { notice: `Coupon ${prefill.coupon.toUpperCase()} applied. Check the new total and pay.` } : {},
      );
    }
    const token = form.token ?? '';
    if (!/^[\w-]{16,64}$/.test(token))
      return showForm(request, reply, scope, offer, prefill, 400, { error: 'The form has expired; check the details and pay again.' });

    try {
      const locality = customerLocality(request, environment, { zip: form.zipCode, country: environment === 'sandbox' ? form.country : undefined });
      const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
      if (!expiry) throw new AppError('INVALID_INPUT', 'Enter the card expiry as MM/YY.');
      if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim())) throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
      const expectedCurrency = form.expectedCurrency ?? '';
      const expectedTotal = /^\d{1,15}$/.test(form.expectedTotal ?? '') ? Number(form.expectedTotal) : NaN;
      if (!/^[A-Za-z]{3}$/.test(expectedCurrency) || !Number.isSafeInteger(expectedTotal))
        throw new AppError('INVALID_INPUT', 'The form is incomplete; reload the page and pay again.');
      // One token, one payment: a second submit of the same form shows the first outcome.
      const outcome = await services.checkout.pay(scope, token, {
        productId: request.params.productId,
        email: form.email ?? '',
        firstName: form.firstName || undefined,
        lastName: form.lastName || undefined,
        country: locality.country,
        region: locality.region ?? undefined,
        card: { number: (form.cardNumber ?? '').replace(/[\s-]/g, ''), expMonth: Number(expiry[1]), expYear: Number(expiry[2]) },
        payload: offer.customized?.payload ?? form.payload ?? null,
        coupon: prefill.coupon,
        expectedTotal: { currency: expectedCurrency, totalMinor: expectedTotal },
      });
      if (outcome.status === 'IN_PROGRESS')
        return problemPage(reply, 409, 'Payment in progress', 'This payment is already being processed. Wait a moment and reload this page; do not pay again.');
      if (outcome.status === 'DECLINED')
        return await showForm(request, reply, scope, offer, prefill, 402, { error: `The payment was declined: ${outcome.message} Try another card.` });
      return await showReceipt(request, reply, scope, offer, outcome);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'LINK_EXPIRED' || err.code === 'NOT_FOUND') return offerFailure(reply, err);
      return showForm(request, reply, scope, offer, prefill, ERROR_STATUS[err.code], { error: err.message });
    }
  });
}
