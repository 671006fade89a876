import type { FastifyRequest } from 'fastify';
import type { Offer } from '../../../domain/catalog/index.ts';
import type { Locality, PurchaseRequest } from '../../../domain/checkout/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import { passesLuhn, type CardInput } from '../../../domain/payments/index.ts';
import { isEmail, requireCardExpiry } from '../../../domain/validation.ts';
import { customerLocality } from '../../customer-locality.ts';
import type { FormBody } from '../form-body.ts';
import type { Params } from './checkout-context.ts';
import { readPrefill, type CheckoutPrefill } from './checkout-url.ts';
import { buyerTranslator } from '../buyer-language.ts';
import { fieldMessages, type FieldErrors, type FieldMessages } from './checkout-views.ts';

/** A US ZIP code, when the buyer gave one: five digits, or ZIP+4. */
export const US_ZIP = /^\d{5}(-?\d{4})?$/;

/** Whether `token` is one the checkout page gives its form (the payment's idempotency key): 16 to 64 of [A-Za-z0-9_-]. */
export const isFormToken = (token: string) => /^[\w-]{16,64}$/.test(token);

/** Everything of a purchase but the card. */
export type PurchaseDetails = Omit<PurchaseRequest, 'card'>;

/**
 * The checkout form as posted, read once into what its POST routes (Pay, and the processor's browser
 * session) act on. Reading charges and counts nothing: each route decides, in its own order, what it
 * answers first.
 */
export interface CheckoutForm {
  /** The form's one-time token; undefined when the form has none the page could have given. */
  token: string | undefined;
  /** The coupon typed, trimmed; undefined when none. */
  coupon: string | undefined;
  /** The coupon typed is not the one the total shown was priced with (the page's `appliedCoupon`). */
  couponChanged: boolean;
  /** Sent again from the "Try again" page, which keeps everything but the card. */
  resumed: boolean;
  /** The page's prefill with what the customer typed over it: to show the form again as typed. */
  prefill: CheckoutPrefill;
  /** Every field of the form that is wrong, at once: e-mail, country, ZIP code (in the US). */
  fieldErrors: FieldErrors;
  /** What is wrong with the card typed into opentill's own card form: number, expiry, CVC. */
  cardErrors: FieldErrors;
  /** Everything of the purchase but the card, or why there is none: an unknown country, no total shown. */
  details: PurchaseDetails | AppError;
  /** The card typed into opentill's own card form; undefined when any of its fields is wrong (see cardErrors). */
  card: CardInput | undefined;
}

/** The posted form, field name to text; empty when the request has none. */
export const formOf = (request: FastifyRequest): FormBody =>
  request.body && typeof request.body === 'object' ? (request.body as FormBody) : {};

export function readCheckoutForm(request: FastifyRequest, environment: Environment, offer: Offer): CheckoutForm {
  const form = formOf(request);
  const coupon = form.coupon?.trim() || undefined;
  const token = form.token ?? '';
  let locality: Locality | AppError;
  try {
    locality = customerLocality(request, environment, { zip: form.zipCode, country: form.country });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    locality = err;
  }
  const tr = buyerTranslator(request);
  const messages = fieldMessages(tr);
  const { card, cardErrors } = readCard(form, messages);
  return {
    token: isFormToken(token) ? token : undefined,
    coupon,
    couponChanged: (coupon ?? '').toUpperCase() !== (form.appliedCoupon ?? '').toUpperCase(),
    resumed: form.resumed === '1' && !form.cardNumber,
    prefill: {
      ...readPrefill(request.query as Record<string, unknown>),
      email: form.email,
      firstName: form.firstName,
      lastName: form.lastName,
      zipCode: form.zipCode,
      payload: form.payload,
      coupon,
      country: form.country,
      businessName: form.businessName?.trim() || undefined,
      buyerAddress: form.buyerAddress?.trim() || undefined,
      vatId: form.vatId?.trim() || undefined,
      quantity: form.quantity?.trim() || undefined,
    },
    fieldErrors: fieldErrorsOf(form, locality, messages, tr.t('checkout.fieldCountry')),
    cardErrors,
    details: locality instanceof AppError ? locality : detailsOf(request, form, offer, locality, coupon, tr.locale),
    card,
  };
}

function fieldErrorsOf(
  form: FormBody,
  locality: Locality | AppError,
  messages: FieldMessages,
  chooseCountry: string,
): FieldErrors {
  const errors: FieldErrors = {};
  if (!isEmail((form.email ?? '').trim())) errors.email = messages.email;
  if (locality instanceof AppError) errors.country = chooseCountry;
  const zip = (form.zipCode ?? '').trim();
  if (zip && !(locality instanceof AppError) && locality.country === 'US' && !US_ZIP.test(zip))
    errors.zipCode = messages.zipCode;
  return errors;
}

/** What the customer entered, checked: everything of the purchase but the card. */
function detailsOf(
  request: FastifyRequest,
  form: FormBody,
  offer: Offer,
  locality: Locality,
  coupon: string | undefined,
  locale: string,
): PurchaseDetails | AppError {
  const expectedCurrency = form.expectedCurrency ?? '';
  const expectedTotal = /^\d{1,15}$/.test(form.expectedTotal ?? '') ? Number(form.expectedTotal) : NaN;
  if (!/^[A-Za-z]{3}$/.test(expectedCurrency) || !Number.isSafeInteger(expectedTotal))
    return new AppError('INVALID_INPUT', 'The form is incomplete; reload the page and pay again.');
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
    coupon,
    quantity: form.quantity?.trim() || undefined,
    expectedTotal: { currency: expectedCurrency, totalMinor: expectedTotal },
    // The language the buyer saw the checkout in: the purchase keeps it for its e-mails and invoices.
    locale,
  };
}

/** The card of opentill's own card form, read once; its expiry is held to the domain's rule (requireCardExpiry). */
function readCard(form: FormBody, messages: FieldMessages): { card: CardInput | undefined; cardErrors: FieldErrors } {
  const cardErrors: FieldErrors = {};
  const number = (form.cardNumber ?? '').replace(/[\s-]/g, '');
  if (!passesLuhn(number)) cardErrors.cardNumber = messages.cardNumber;
  const expiry = expiryOf(form.cardExpiry);
  if (!expiry) cardErrors.cardExpiry = messages.cardExpiry;
  const cvc = (form.cardCvc ?? '').trim();
  if (!/^\d{3,4}$/.test(cvc)) cardErrors.cardCvc = messages.cardCvc;
  const card = expiry && Object.keys(cardErrors).length === 0 ? { number, ...expiry, cvc } : undefined;
  return { card, cardErrors };
}

/** MM/YY or MM/YYYY, a month and year the domain takes; undefined when the text is not one. */
function expiryOf(text: string | undefined): { expMonth: number; expYear: number } | undefined {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text ?? '');
  if (!match) return undefined;
  const expiry = { expMonth: Number(match[1]), expYear: Number(match[2]) };
  try {
    requireCardExpiry(expiry);
  } catch (err) {
    if (err instanceof AppError) return undefined;
    throw err;
  }
  return expiry;
}
