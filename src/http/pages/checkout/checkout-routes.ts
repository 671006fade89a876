import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { Offer } from '../../../domain/catalog/index.ts';
import { isPayment } from '../../../domain/payments/index.ts';
import type { LedgerEntry, Scope, Transaction } from '../../../domain/model.ts';
import { KNOWN_COUNTRIES } from '../../../domain/tax/index.ts';
import { requireOrigin } from '../../../domain/validation.ts';
import type { CheckoutOutcome } from '../../../domain/checkout/index.ts';
import { BusinessDetailsError, type PurchaseRequest } from '../../../domain/checkout/index.ts';
import { isEuCountry } from '../../../domain/tax/index.ts';
import { customerLocality } from '../../customer-locality.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { jsonErrorHandler } from '../json-errors.ts';
import { html, sendPage, sendProblem } from '../layout.ts';
import { readPrefill, type CheckoutPrefill } from './checkout-url.ts';
import { checkoutLimits } from './checkout-limits.ts';
import { jsonFailure, jsonOffer, refuse } from './checkout-json.ts';
import { vetCoupon } from './coupon-attempts.ts';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import {
  checkoutForm,
  countryName,
  FIELD_MESSAGES,
  payLabel,
  priceLines,
  receipt,
  tryAgain,
  type FieldErrors,
} from './checkout-views.ts';
import { passesLuhn } from '../../../domain/payments/index.ts';
import { isEmail } from '../../../domain/validation.ts';

/**
 * The hosted checkout at {hosted_url}/payment/product/{id}: a server-rendered form that works
 * without JavaScript, priced on the server. Submitting charges through the same purchase code as
 * the API's tools; the form's one-time token is an idempotency key, so a double submit (or a
 * reload of the POST) never pays twice, and the total the customer saw must be the total charged.
 */
type Params = { productId: string };

/**
 * Where the checkout is shown (docs/decisions.md §14). The client script opens it with `embedded=1`
 * and `origin`, the origin of the vendor's page. Only a page of that origin may frame it
 * (`frame-ancestors`), and only that origin hears from it; without an origin nobody may frame it.
 */
interface Embedding {
  /** Inside the overlay: a Close button, and messages to the parent page. */
  embedded: boolean;
  /** The embedding page's origin, canonical (`scheme://host[:port]`), or null. */
  origin: string | null;
}

function embeddingOf(request: FastifyRequest): Embedding {
  const query = request.query as Record<string, unknown>;
  let origin: string | null = null;
  try {
    if (typeof query.origin === 'string' && query.origin.length <= 300) origin = requireOrigin(query.origin);
  } catch {
    // Not an http(s) origin: as if none was announced.
  }
  return { embedded: query.embedded === '1' && origin !== null, origin };
}

const frameAncestorsOf = (embedding: Embedding) => embedding.origin ?? "'none'";

/** The embedding as a query string, for the checkout's links to its own pages (`?embedded=1&origin=…`, or nothing). */
const embeddingQuery = (embedding: Embedding) =>
  embedding.origin
    ? `?${new URLSearchParams({ ...(embedding.embedded ? { embedded: '1' } : {}), origin: embedding.origin }).toString()}`
    : '';

/** JSON inside <script>: no "</script>" or line separators can end the script early. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Inside the widget's iframe: tell the parent page, and only at the announced origin, what happened; let the customer close. */
const EMBED_SCRIPT = (
  origin: string,
  message: object | null,
) => `(function(){var p=window.parent,o=${scriptJson(origin)};if(p===window)return;
function send(m){p.postMessage(Object.assign({source:'opentill'},m),o)}
send({type:'ready'});${message ? `send(${scriptJson(message)});` : ''}
var c=document.getElementById('close');if(c)c.addEventListener('click',function(){send({type:'close'})});
document.addEventListener('keydown',function(e){if(e.key==='Escape')send({type:'close'})});})();`;

/** A US ZIP code, when the buyer gave one: five digits, or ZIP+4. */
const US_ZIP = /^\d{5}(-?\d{4})?$/;

/**
 * The form's own script: the price, tax and total follow the country, ZIP code and coupon (asked of
 * the quote endpoint, the one pricing function), and so do the hidden expected total and, through the
 * `opentill:quote` event, the processor's card element; a Pay pressed while a new price is on its way
 * waits for it. Every invalid field is marked at once (`aria-invalid`, a message it is described by) and
 * the first one focused. The card number is spaced in groups of four and its brand shown.
 */
const CHECKOUT_SCRIPT = `(function(){var f=document.getElementById('checkout');if(!f||!f.getAttribute('data-quote'))return;
var c={quoteUrl:f.getAttribute('data-quote'),country:f.getAttribute('data-country')},m=${scriptJson(FIELD_MESSAGES)};
var box=document.getElementById('price'),pay=document.getElementById('pay'),pending=null,seq=0;
function el(n){return f.elements.namedItem(n)}function v(n){var e=el(n);return e&&e.value?e.value.trim():''}
function sel(){var e=el('country');return e&&e.tagName==='SELECT'?e:null}
function mark(n,t){var e=el(n);if(!e)return;var id=n+'-error',p=document.getElementById(id);
if(t){if(!p){p=document.createElement('p');p.className='field-error';p.id=id;e.insertAdjacentElement('afterend',p);}p.textContent=t;e.setAttribute('aria-invalid','true');e.setAttribute('aria-describedby',id);}
else{if(p)p.remove();e.removeAttribute('aria-invalid');e.removeAttribute('aria-describedby');}}
function quote(e){var n=++seq,w=e&&e.target&&e.target.name||'zipCode',q=new URLSearchParams({zipCode:v('zipCode'),coupon:v('coupon'),vatId:v('vatId')});if(sel())q.set('country',sel().value);
var p=fetch(c.quoteUrl+'?'+q,{headers:{accept:'application/json'}}).then(function(r){return r.json()}).then(function(j){if(n!==seq)return;
if(j.error){mark(w,j.message);return;}mark('country','');mark('zipCode','');mark('coupon',j.couponError||'');mark('vatId',j.vatIdError||'');
box.innerHTML=j.html;el('expectedCurrency').value=j.currency;el('expectedTotal').value=String(j.totalMinor);el('appliedCoupon').value=j.coupon||'';pay.textContent=j.payLabel;
f.dispatchEvent(new CustomEvent('opentill:quote',{detail:j}));}).catch(function(){}).then(function(){if(pending===p)pending=null;});pending=p;}
['country','zipCode','coupon','vatId'].forEach(function(n){var e=el(n);if(e&&!e.readOnly)e.addEventListener('change',quote);});
var cp=el('coupon');if(cp)cp.addEventListener('keydown',function(e){if(e.key==='Enter'){e.preventDefault();quote(e);}});
function luhn(d){var s=0;for(var i=0;i<d.length;i++){var x=+d[d.length-1-i];if(i%2){x*=2;if(x>9)x-=9;}s+=x;}return s%10===0}
var cn=el('cardNumber'),br=document.getElementById('card-brand');
if(cn)cn.addEventListener('input',function(){var d=cn.value.replace(/\\D/g,'').slice(0,19);
if(cn.selectionStart===cn.value.length)cn.value=d.replace(/(\\d{4})(?=\\d)/g,'$1 ');
br.textContent=/^4/.test(d)?'Visa':/^(5[1-5]|2[2-7])/.test(d)?'Mastercard':/^3[47]/.test(d)?'American Express':/^6(011|5)/.test(d)?'Discover':'';});
function check(){var bad=[];function t(n,ok,msg){var e=el(n);if(!e||e.readOnly)return;if(ok!==null)mark(n,ok?'':msg);if(e.getAttribute('aria-invalid')==='true')bad.push(e);}
t('email',/^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/.test(v('email')),m.email);
t('country',null);t('zipCode',!v('zipCode')||(sel()?sel().value:c.country)!=='US'||/^\\d{5}(-?\\d{4})?$/.test(v('zipCode')),m.zipCode);
t('coupon',null);var d=v('cardNumber').replace(/[\\s-]/g,'');t('cardNumber',/^\\d{12,19}$/.test(d)&&luhn(d),m.cardNumber);
t('cardExpiry',/^(0?[1-9]|1[0-2])\\s*\\/\\s*(\\d{2}|\\d{4})$/.test(v('cardExpiry')),m.cardExpiry);t('cardCvc',/^\\d{3,4}$/.test(v('cardCvc')),m.cardCvc);
return bad[0]||null}
f.addEventListener('submit',function(e){if(pending){e.preventDefault();e.stopImmediatePropagation();pending.then(function(){f.requestSubmit();});return;}
var b=check();if(b){e.preventDefault();e.stopImmediatePropagation();b.focus();}});})();`;

/** Whether the offer charges nothing now: a trial, or a switch from another subscription. */
const inTrialOrSwitch = (offer: Offer) =>
  !!offer.customized?.transactionIdToMigrate || (offer.product.type === 'SUBSCRIPTION' && offer.product.trialDays > 0);

/** What the card element does: nothing due now (a trial, a free start, a switch, a vaulted method at zero) only saves the card. */
function elementMode(needsCard: boolean, totalMinor: number, offer: Offer): 'payment' | 'setup' | 'none' {
  if (!needsCard) return 'none';
  return totalMinor > 0 && !inTrialOrSwitch(offer) ? 'payment' : 'setup';
}

/**
 * The processor's card element (Stripe's Payment Element; its script is the processor's, loaded by
 * URL): mounted with the amount priced here, it is confirmed against a session opentill starts on
 * Pay, for the amount opentill priced; 3-D Secure happens inside it. The card goes from the element
 * to the processor; opentill's page never holds it. After a decline the customer may try another
 * card in the same session; the details above are then fixed (reload the page to change them).
 */
const PROCESSOR_SCRIPT = (c: {
  publicKey: string;
  mode: 'payment' | 'setup' | 'none';
  amount: number;
  currency: string;
  saveForLater: boolean;
  sessionUrl: string;
}) =>
  c.mode === 'none'
    ? ''
    : `(function(){var c=${scriptJson(c)};
var stripe=Stripe(c.publicKey);var o={mode:c.mode,currency:c.currency};if(c.mode==='payment'){o.amount=c.amount;if(c.saveForLater)o.setupFutureUsage='off_session';}
var elements=stripe.elements(o);elements.create('payment').mount('#payment-element');
var form=document.getElementById('checkout'),pay=document.getElementById('pay'),err=document.getElementById('card-error'),started=null;
form.addEventListener('opentill:quote',function(e){var q=e.detail,u={currency:q.currency.toLowerCase()};if(c.mode==='payment'&&q.totalMinor>0)u.amount=q.totalMinor;if(c.mode!=='payment'||u.amount)elements.update(u);});
function fail(m){err.textContent=m;err.hidden=false;pay.disabled=false;}
form.addEventListener('submit',function(e){
if(form.coupon&&form.coupon.value.trim().toUpperCase()!==form.appliedCoupon.value.toUpperCase())return;
e.preventDefault();if(pay.disabled)return;pay.disabled=true;err.hidden=true;
elements.submit().then(function(r){if(r.error)throw r.error;
return started||fetch(c.sessionUrl,{method:'POST',headers:{'content-type':'application/x-www-form-urlencoded'},body:new URLSearchParams(new FormData(form))}).then(function(res){
return res.json().catch(function(){return{}}).then(function(j){if(j.redirect){location.assign(j.redirect);return new Promise(function(){});}
if(!res.ok||!j.clientSecret)throw{message:j.message||'The payment could not be started; try again.'};
Array.prototype.forEach.call(form.querySelectorAll('input,select'),function(i){i.readOnly=true;});started=j;return j;});});
}).then(function(j){var a={elements:elements,clientSecret:j.clientSecret,confirmParams:{return_url:new URL(j.confirmUrl,location.href).href},redirect:'if_required'};
return (j.mode==='payment'?stripe.confirmPayment(a):stripe.confirmSetup(a)).then(function(r){if(r.error)throw r.error;location.assign(j.confirmUrl);});
}).catch(function(e){fail((e&&e.message)||'The payment did not go through; try again.');});});})();`;

/** The receipt's link to the payment's invoice, relative to `/payment/product/{id}` so it works behind any host name. */
function invoicePath(entries: readonly LedgerEntry[], levels = 2): string | null {
  const payment = entries.find(isPayment);
  return payment ? `${'../'.repeat(levels)}invoice/${encodeURIComponent(payment.hashId)}` : null;
}

export function registerCheckout(app: HttpApp, { services, environment }: EnvironmentContext) {
  const limits = checkoutLimits(app, services.config, environment);
  // The seller's name as its invoices carry it (Settings), else the vendor's account name.
  const vendorName = async (scope: Scope) => {
    const vendor = await services.catalog.findVendor(scope.vendorId);
    return vendor?.sellerName ?? vendor?.name ?? '';
  };

  async function showForm(
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    offer: Offer,
    prefill: CheckoutPrefill,
    status: number,
    messages: { error?: string | undefined; notice?: string | undefined; fieldErrors?: FieldErrors | undefined } = {},
  ) {
    const locality = customerLocality(request, environment, { zip: prefill.zipCode, country: prefill.country });
    const productId = (request.params as Params).productId;
    if (prefill.coupon) {
      // A coupon that cannot be used (or may not be tried now): show the price without it, and say why.
      const verdict = await vetCoupon(services, request.ip, scope, offer.product.id, prefill.coupon);
      if (verdict.status !== 'valid') {
        messages = { ...messages, error: messages.error ?? verdict.message };
        prefill = { ...prefill, coupon: undefined };
        if (verdict.status === 'blocked') {
          status = 429;
          reply.header('retry-after', String(verdict.retryAfterSeconds));
        }
      }
    }
    const { quote } = await services.purchases.quote(scope, productId, locality, prefill.coupon, prefill.vatId);
    const lockedEmail = offer.customized?.userMail ?? undefined;
    const embedding = embeddingOf(request);
    const cardEntry = services.payments.cardEntry(environment);
    const needsCard = offer.product.type !== 'ONETIME' || quote.totalMinor > 0;
    const token = randomBytes(18).toString('base64url');
    const embedScript = embedding.embedded && embedding.origin ? EMBED_SCRIPT(embedding.origin, null) : '';
    const browserScript =
      cardEntry.kind === 'browser'
        ? PROCESSOR_SCRIPT({
            publicKey: cardEntry.publicKey,
            mode: elementMode(needsCard, quote.totalMinor, offer),
            amount: quote.totalMinor,
            currency: quote.currency.toLowerCase(),
            saveForLater: offer.product.type !== 'ONETIME',
            sessionUrl: `${encodeURIComponent(productId)}/session${embeddingQuery(embedding)}`,
          })
        : '';
    return sendPage(reply, {
      status,
      title: offer.product.name,
      frameAncestors: frameAncestorsOf(embedding),
      body: checkoutForm(
        {
          environment,
          vendorName: await vendorName(scope),
          offer,
          quote,
          locale: localeFromAcceptLanguage(request.headers['accept-language']),
          country: locality.country,
          countryEditable: locality.source !== 'ip',
          countries: KNOWN_COUNTRIES,
          quoteUrl: `${encodeURIComponent(productId)}/quote`,
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
          now: services.clock.now(scope),
          ...messages,
        },
        embedding.embedded,
      ),
      // The form's own script: inline before the processor's (its Pay waits for a new price first), else a file of this origin, under the page's nonce.
      script: embedScript + (cardEntry.kind === 'browser' ? CHECKOUT_SCRIPT : '') + browserScript || undefined,
      processorScript:
        cardEntry.kind === 'browser' && needsCard
          ? { url: cardEntry.scriptUrl, origins: cardEntry.origins }
          : { url: '../checkout.js', origins: [] },
    });
  }

  const problemPage = (reply: FastifyReply, status: number, title: string, text: string) =>
    sendProblem(reply, status, title, text, frameAncestorsOf(embeddingOf(reply.request)));

  const showReceipt = async (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    offer: Offer,
    paid: { transaction: Transaction; entries: LedgerEntry[]; licence: string | null },
    /** How far the page is below the root of its environment: 2 for /payment/product/{id}. */
    levels = 2,
  ) => {
    const embedding = embeddingOf(request);
    return sendPage(reply, {
      status: 200,
      title: 'Thank you',
      frameAncestors: frameAncestorsOf(embedding),
      body: receipt(
        {
          vendorName: await vendorName(scope),
          offer,
          transaction: paid.transaction,
          licence: paid.licence,
          invoicePath: invoicePath(paid.entries, levels),
          locale: localeFromAcceptLanguage(request.headers['accept-language']),
        },
        embedding.embedded,
      ),
      script:
        embedding.embedded && embedding.origin
          ? EMBED_SCRIPT(embedding.origin, { type: 'paid', transactionId: paid.transaction.id })
          : undefined,
    });
  };

  const offerOf = async (productId: string): Promise<{ scope: Scope; offer: Offer }> => {
    const scope = await services.catalog.ownerOf(productId, environment);
    return { scope, offer: await services.catalog.resolveOffer(scope, productId) };
  };

  /** Page-level failures that are not the form's fault: unknown product, expired link. */
  function offerFailure(reply: FastifyReply, err: unknown) {
    if (err instanceof AppError && err.code === 'LINK_EXPIRED')
      return problemPage(reply, 410, 'This link has expired', err.message);
    if (err instanceof AppError && err.code === 'NOT_FOUND')
      return problemPage(
        reply,
        404,
        'Product not found',
        'This payment link does not lead to a product. Check the link, or ask the seller for a new one.',
      );
    throw err;
  }

  // The checkout form's script (CHECKOUT_SCRIPT), the same for every product: the page's CSP allows it by nonce.
  app.get('/payment/checkout.js', { schema: { hide: true }, errorHandler: jsonErrorHandler }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(CHECKOUT_SCRIPT),
  );

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

  // The database away (or opentill still starting): a page to send the form again in a moment, as typed (the card aside).
  const whileUnavailable = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, {
      status: 503,
      title: 'Temporarily unavailable',
      frameAncestors: frameAncestorsOf(embeddingOf(request)),
      body: tryAgain(request.body && typeof request.body === 'object' ? (request.body as FormBody) : {}),
    });

  app.post<{ Params: Params; Body: FormBody }>(
    '/payment/product/:productId',
    { schema: { hide: true }, config: { whileUnavailable } },
    async (request, reply) => {
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
        businessName: form.businessName?.trim() || undefined,
        buyerAddress: form.buyerAddress?.trim() || undefined,
        vatId: form.vatId?.trim() || undefined,
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
          prefill.coupon
            ? { notice: `Coupon ${prefill.coupon.toUpperCase()} applied. Check the new total and pay.` }
            : {},
        );
      }
      const token = form.token ?? '';
      if (!/^[\w-]{16,64}$/.test(token))
        return showForm(request, reply, scope, offer, prefill, 400, {
          error: 'The form has expired; check the details and pay again.',
        });
      if (prefill.coupon) {
        // The coupon shown with the price is checked (and limited) again: the form is the customer's to change.
        const verdict = await vetCoupon(services, request.ip, scope, offer.product.id, prefill.coupon);
        if (verdict.status === 'blocked') reply.header('retry-after', String(verdict.retryAfterSeconds));
        if (verdict.status !== 'valid')
          return showForm(
            request,
            reply,
            scope,
            offer,
            { ...prefill, coupon: undefined },
            verdict.status === 'blocked' ? 429 : 400,
            {
              error: verdict.message,
            },
          );
      }

      try {
        const cardEntry = services.payments.cardEntry(environment);
        const fieldErrors = invalidFields(request, form, cardEntry.kind === 'form');
        if (Object.keys(fieldErrors).length > 0) {
          // Sent again from the "Try again" page, which keeps everything but the card.
          const resumed = form.resumed === '1' && !form.cardNumber;
          const error = resumed
            ? 'Enter your card again to pay: nothing has been charged yet.'
            : 'Some details need fixing: see the fields marked below.';
          return showForm(request, reply, scope, offer, prefill, 400, { error, fieldErrors });
        }
        const details = purchaseDetails(request, form, offer, prefill);
        if (cardEntry.kind === 'none')
          return showForm(request, reply, scope, offer, prefill, 402, {
            error: `This shop cannot take payments yet. ${cardEntry.message}`,
          });
        let outcome: CheckoutOutcome;
        if (cardEntry.kind === 'form') {
          const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
          if (!expiry) throw new AppError('INVALID_INPUT', 'Enter the card expiry as MM/YY.');
          if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim()))
            throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
          // One token, one payment: a second submit of the same form shows the first outcome.
          outcome = await services.checkout.pay(scope, token, {
            ...details,
            card: {
              number: (form.cardNumber ?? '').replace(/[\s-]/g, ''),
              expMonth: Number(expiry[1]),
              expYear: Number(expiry[2]),
              cvc: (form.cardCvc ?? '').trim(),
            },
          });
        } else {
          // The processor's card field runs in the browser; without JavaScript only a purchase with nothing to pay and no card to keep goes through.
          const started = await services.checkout.payWithoutBrowser(scope, token, details);
          if (started.status === 'NEEDS_BROWSER')
            return showForm(request, reply, scope, offer, prefill, 400, {
              error:
                "The card field needs JavaScript: it is the payment processor's, so that your card never reaches this shop's server.",
            });
          outcome = started;
        }
        if (outcome.status === 'PENDING')
          return showPending(
            reply,
            scope,
            offer,
            `${encodeURIComponent(request.params.productId)}/confirm/${encodeURIComponent(token)}`,
          );
        if (outcome.status === 'DECLINED')
          return await showForm(request, reply, scope, offer, prefill, 402, {
            error: `The payment was declined: ${outcome.message} Try another card.`,
          });
        return await showReceipt(request, reply, scope, offer, outcome);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'LINK_EXPIRED' || err.code === 'NOT_FOUND') return offerFailure(reply, err);
        // Another country, ZIP code or coupon than the price shown was for (a page without its script): show the new price, charge nothing.
        if (err.code === 'PRICE_CHANGED')
          return showForm(request, reply, scope, offer, prefill, 409, {
            error: 'The total changed with the details you entered; nothing was charged. Check the new total and pay.',
          });
        if (err instanceof BusinessDetailsError)
          return showForm(request, reply, scope, offer, prefill, 400, {
            error: 'Some details need fixing: see the fields marked below.',
            fieldErrors: { [err.field]: err.message },
          });
        if (err.code === 'INVALID_EMAIL')
          return showForm(request, reply, scope, offer, prefill, 400, {
            error: err.message,
            fieldErrors: { email: FIELD_MESSAGES.email },
          });
        // Unavailable for a moment (the database, the payment network): the form again, as typed, with when to press Pay again.
        if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
        if (err.code === 'SERVICE_UNAVAILABLE')
          return showForm(request, reply, scope, offer, prefill, 503, {
            error:
              'Your payment could not be completed just now. Press Pay again in a moment: you will not be charged twice.',
          });
        return showForm(request, reply, scope, offer, prefill, ERROR_STATUS[err.code], { error: err.message });
      }
    },
  );

  /** Every field of the form that is wrong, at once: e-mail, ZIP code (in the US) and, in opentill's own card form, the card. */
  function invalidFields(request: FastifyRequest, form: FormBody, ownCardForm: boolean): FieldErrors {
    const errors: FieldErrors = {};
    if (!isEmail((form.email ?? '').trim())) errors.email = FIELD_MESSAGES.email;
    let country: string | undefined;
    try {
      country = customerLocality(request, environment, { country: form.country }).country;
    } catch {
      errors.country = 'Choose a country from the list.';
    }
    const zip = (form.zipCode ?? '').trim();
    if (zip && country === 'US' && !US_ZIP.test(zip)) errors.zipCode = FIELD_MESSAGES.zipCode;
    if (ownCardForm) {
      if (!passesLuhn((form.cardNumber ?? '').replace(/[\s-]/g, ''))) errors.cardNumber = FIELD_MESSAGES.cardNumber;
      const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
      if (!expiry || Number(expiry[1]) < 1 || Number(expiry[1]) > 12) errors.cardExpiry = FIELD_MESSAGES.cardExpiry;
      if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim())) errors.cardCvc = FIELD_MESSAGES.cardCvc;
    }
    return errors;
  }

  /**
   * The price for a country, ZIP code and coupon, from the one pricing function: what the checkout's
   * script shows when the buyer changes them, and the total it then expects. `{error, message, field}` on bad input.
   */
  app.get<{ Params: Params }>(
    '/payment/product/:productId/quote',
    { schema: { hide: true }, errorHandler: jsonErrorHandler },
    async (request, reply) => {
      const fail = jsonFailure(reply);
      const found = await jsonOffer(request, reply, limits.quotes, offerOf);
      if (!('offer' in found)) return found;
      const { scope, offer } = found;
      const query = request.query as Record<string, unknown>;
      const text = (name: string): string | null => {
        const value = Array.isArray(query[name]) ? (query[name] as unknown[]).at(-1) : query[name];
        if (value === undefined) return '';
        return typeof value === 'string' ? value.trim() : null;
      };
      const [country, zipCode, couponCode, vatId] = [text('country'), text('zipCode'), text('coupon'), text('vatId')];
      if (country === null || (country !== '' && !/^[A-Za-z]{2}$/.test(country)))
        return fail(400, 'INVALID_INPUT', 'country must be a two-letter ISO 3166-1 code, such as DE.');
      if (zipCode === null || zipCode.length > 16 || !/^[A-Za-z0-9 -]*$/.test(zipCode))
        return fail(400, 'INVALID_INPUT', FIELD_MESSAGES.zipCode);
      if (couponCode === null || couponCode.length > 64)
        return fail(400, 'INVALID_INPUT', 'coupon must be a code of at most 64 characters.');
      if (vatId === null || vatId.length > 24)
        return fail(400, 'INVALID_INPUT', 'vatId must be a VAT ID of at most 24 characters.');
      let locality;
      try {
        locality = customerLocality(request, environment, { zip: zipCode || undefined, country: country || undefined });
      } catch (err) {
        if (err instanceof AppError) return fail(400, err.code, 'Choose a country from the list.');
        throw err;
      }
      if (zipCode && locality.country === 'US' && !US_ZIP.test(zipCode))
        return fail(400, 'INVALID_INPUT', FIELD_MESSAGES.zipCode);
      // Counted once the request is valid: garbage cannot use up a product's quotes for its buyers.
      const overProductLimit = await limits.quotes.byProduct(request, offer.product.id);
      if (overProductLimit) return refuse(reply, overProductLimit);
      let coupon: string | undefined = couponCode || undefined;
      let couponError: string | undefined;
      if (coupon) {
        // The same guess limit as the page's: a quote is no way around it.
        const verdict = await vetCoupon(services, request.ip, scope, offer.product.id, coupon);
        if (verdict.status === 'blocked') {
          reply.header('retry-after', String(verdict.retryAfterSeconds));
          return fail(429, 'RATE_LIMITED', verdict.message);
        }
        if (verdict.status !== 'valid') [coupon, couponError] = [undefined, verdict.message];
      }
      const { quote, business } = await services.purchases.quote(
        scope,
        request.params.productId,
        locality,
        coupon,
        vatId || undefined,
      );
      // A VAT ID that is not of an EU buyer's country is marked (the purchase would refuse it); outside the EU it is kept without reverse charge.
      const vatIdError =
        business && !business.valid && isEuCountry(locality.country) ? `VAT ID: ${business.reason}` : undefined;
      return reply.header('cache-control', 'no-store').send({
        country: locality.country,
        countryName: countryName(locality.country),
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
        payLabel: payLabel(offer, quote, localeFromAcceptLanguage(request.headers['accept-language'])),
        html: priceLines(
          offer,
          quote,
          services.clock.now(scope),
          localeFromAcceptLanguage(request.headers['accept-language']),
        ).text,
      });
    },
  );

  /** What the customer entered, checked: everything of the purchase but the card. */
  function purchaseDetails(
    request: FastifyRequest,
    form: FormBody,
    offer: Offer,
    prefill: CheckoutPrefill,
  ): Omit<PurchaseRequest, 'card'> {
    const locality = customerLocality(request, environment, { zip: form.zipCode, country: form.country });
    const expectedCurrency = form.expectedCurrency ?? '';
    const expectedTotal = /^\d{1,15}$/.test(form.expectedTotal ?? '') ? Number(form.expectedTotal) : NaN;
    if (!/^[A-Za-z]{3}$/.test(expectedCurrency) || !Number.isSafeInteger(expectedTotal))
      throw new AppError('INVALID_INPUT', 'The form is incomplete; reload the page and pay again.');
    return {
      productId: (request.params as Params).productId,
      email: form.email ?? '',
      firstName: form.firstName || undefined,
      lastName: form.lastName || undefined,
      country: locality.country,
      region: locality.region ?? undefined,
      zip: locality.zip ?? undefined,
      businessName: form.businessName?.trim() || undefined,
      buyerAddress: form.buyerAddress?.trim() || undefined,
      vatId: form.vatId?.trim() || undefined,
      payload: offer.customized?.payload ?? form.payload ?? null,
      coupon: prefill.coupon,
      expectedTotal: { currency: expectedCurrency, totalMinor: expectedTotal },
    };
  }

  /**
   * The processor's browser session of a form's payment, for the page's script: `{clientSecret,
   * mode, confirmUrl}` to confirm in the card element, `{redirect}` when there is nothing to confirm
   * (booked, or already settled), or `{error, message}`. The amount is priced here from the form's
   * details, never taken from the browser; the form's token keys the attempt, so twenty clicks make
   * one session.
   */
  app.post<{ Params: Params; Body: FormBody }>(
    '/payment/product/:productId/session',
    { schema: { hide: true }, errorHandler: jsonErrorHandler },
    async (request, reply) => {
      const fail = jsonFailure(reply);
      const found = await jsonOffer(request, reply, limits.sessions, offerOf);
      if (!('offer' in found)) return found;
      const { scope, offer } = found;
      if (services.payments.cardEntry(environment).kind !== 'browser')
        return fail(404, 'NOT_FOUND', 'This checkout takes the card in its own form.');
      const form: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
      const token = form.token ?? '';
      if (!/^[\w-]{16,64}$/.test(token))
        return fail(400, 'INVALID_INPUT', 'The form has expired; reload the page and pay again.');
      const coupon = form.coupon?.trim() || undefined;
      if ((coupon ?? '').toUpperCase() !== (form.appliedCoupon ?? '').toUpperCase())
        return fail(
          409,
          'PRICE_CHANGED',
          'The coupon changed after the price was shown; reload the page to see the new price.',
        );
      if (coupon) {
        const verdict = await vetCoupon(services, request.ip, scope, offer.product.id, coupon);
        if (verdict.status === 'blocked') reply.header('retry-after', String(verdict.retryAfterSeconds));
        if (verdict.status !== 'valid')
          return fail(verdict.status === 'blocked' ? 429 : 400, 'INVALID_INPUT', verdict.message);
      }
      const prefill: CheckoutPrefill = { ...readPrefill(request.query as Record<string, unknown>), coupon };
      const confirmUrl = `${encodeURIComponent(request.params.productId)}/confirm/${encodeURIComponent(token)}${embeddingQuery(embeddingOf(request))}`;
      try {
        const details = purchaseDetails(request, form, offer, prefill);
        // Counted once the form is complete: malformed requests cannot use up a product's sessions for its buyers.
        const overProductLimit = await limits.sessions.byProduct(request, offer.product.id);
        if (overProductLimit) return refuse(reply, overProductLimit);
        const started = await services.checkout.startSession(scope, token, details);
        if (started.status === 'SESSION')
          return reply
            .header('cache-control', 'no-store')
            .send({ clientSecret: started.clientSecret, mode: started.mode, confirmUrl });
        if (started.status === 'DECLINED') return fail(402, 'PAYMENT_DECLINED', started.message);
        return reply.header('cache-control', 'no-store').send({ redirect: confirmUrl });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return fail(ERROR_STATUS[err.code], err.code, err.message);
      }
    },
  );

  /**
   * The payment's answer is not known yet (the card network timed out or its answer was lost): a
   * page that says so and asks again by itself, at the form's own confirmation URL. Pressing Pay
   * again on the same form finds the same attempt, so it never starts a second charge.
   */
  async function showPending(reply: FastifyReply, scope: Scope, offer: Offer, confirmPath: string) {
    // In the overlay, the confirmation page is framed and talks to the parent like the form was.
    const embedding = embeddingOf(reply.request);
    const url = confirmPath + embeddingQuery(embedding);
    return sendPage(reply, {
      status: 202,
      title: 'Confirming your payment',
      frameAncestors: frameAncestorsOf(embedding),
      // Asks again by script (a timed meta refresh is an accessibility failure, WCAG 2.2.1), by meta refresh without JavaScript.
      body: html`<noscript><meta http-equiv="refresh" content="3;url=${url}"></noscript><p class="muted">${await vendorName(scope)}</p><h1>Confirming your payment</h1>
<div class="box" role="status"><p>Your payment for <strong>${offer.product.name}</strong> is on its way, but the card network has not confirmed it yet.</p>
<p>This page checks again every few seconds and shows your receipt as soon as it is confirmed. You do not need to pay again.</p></div>
<p><a href="${url}" id="check-now">Check now</a></p>`,
      script: `setTimeout(function(){location.replace(document.getElementById('check-now').href)},3000);`,
    });
  }

  app.get<{ Params: Params & { token: string } }>(
    '/payment/product/:productId/confirm/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await offerOf(request.params.productId).catch((err: unknown) => ({ failure: err }));
      if ('failure' in found) return offerFailure(reply, found.failure);
      const { scope, offer } = found;
      const token = request.params.token;
      // Only this product's form's payment: another's receipt is never shown (nor announced to an embedding page) as this one's.
      const outcome = /^[\w-]{16,64}$/.test(token)
        ? await services.checkout.status(scope, token, request.params.productId)
        : undefined;
      if (!outcome)
        return problemPage(
          reply,
          404,
          'Payment not found',
          'There is no payment for this link. Open the payment page again.',
        );
      // This page is /payment/product/{id}/confirm/{token}: it refreshes itself, and its links go two levels further up.
      if (outcome.status === 'PENDING') return showPending(reply, scope, offer, encodeURIComponent(token));
      if (outcome.status === 'DECLINED')
        return problemPage(
          reply,
          402,
          'The payment was declined',
          `${outcome.message} Nothing was charged; open the payment page again to use another card.`,
        );
      return showReceipt(request, reply, scope, offer, outcome, 4);
    },
  );
}
