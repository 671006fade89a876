/** Prefill of the checkout page, from the client script's data-ts-* attributes or `tc.buy` options. */
export interface CheckoutPrefill {
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
  zipCode?: string | undefined;
  coupon?: string | undefined;
  payload?: string | undefined;
  nonEditableEmail?: boolean | undefined;
  country?: string | undefined;
  /** A business buyer's company name, address and VAT ID, from the form (never from the URL). */
  businessName?: string | undefined;
  buyerAddress?: string | undefined;
  vatId?: string | undefined;
  /** Seats (docs/decisions.md §39): `data-ts-quantity`, `tc.buy(id, {quantity})`, or the form's field. */
  quantity?: string | undefined;
}

const FIELDS = ['firstName', 'lastName', 'email', 'zipCode', 'coupon', 'payload', 'country', 'quantity'] as const;

/** The checkout page's URL with its prefill and, opentill's own, the buyer's language (`locale`, one we speak). */
export function checkoutUrl(hostedBase: string, productId: string, prefill: CheckoutPrefill, locale?: string): string {
  const query = new URLSearchParams();
  for (const field of FIELDS) {
    const value = prefill[field];
    if (value) query.set(field, value);
  }
  if (prefill.nonEditableEmail) query.set('nonEditableEmail', 'true');
  if (locale) query.set('locale', locale);
  const search = query.toString();
  return `${hostedBase}/payment/product/${encodeURIComponent(productId)}${search ? `?${search}` : ''}`;
}

export function readPrefill(query: Record<string, unknown>): CheckoutPrefill {
  const text = (name: string) =>
    typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : undefined;
  return {
    firstName: text('firstName'),
    lastName: text('lastName'),
    email: text('email'),
    zipCode: text('zipCode'),
    coupon: text('coupon'),
    payload: text('payload'),
    nonEditableEmail: text('nonEditableEmail') === 'true',
    country: text('country'),
    quantity: text('quantity'),
  };
}
