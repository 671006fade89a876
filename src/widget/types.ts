/**
 * The client script's shapes (widget.ts): what `tc.getPrice` resolves to, what `tc.buy` takes, and
 * what opentill's own `tc.on` handlers receive (docs/decisions.md §29). Types only: nothing here is bundled.
 */
export interface WidgetPrice {
  currency: string;
  price: number;
  priceNet: number;
  tax: number;
  taxName: string;
  taxRate: number;
}

/** The price endpoint's answer; `tc.getPrice` hands out only the WidgetPrice part. */
export interface PriceAnswer extends WidgetPrice {
  priceS: string;
  priceNetS: string;
  taxS: string;
  country: string;
  /** opentill's own: a Buy button's words in the buyer's language. */
  label: string;
}

export interface PriceOptions {
  zipCode?: string;
  /** Sandbox only: the customer's country (ISO alpha-2), instead of the one found from the address. */
  country?: string;
}

export interface BuyOptions extends PriceOptions {
  firstName?: string;
  lastName?: string;
  email?: string;
  coupon?: string;
  payload?: string;
  nonEditableEmail?: boolean;
  /** Open the checkout as a full page instead of over this one. */
  redirect?: boolean;
  /**
   * opentill's own: after a paid checkout in the overlay, the buyer goes to this http(s) address (relative
   * to the page) with `transaction_id` added to its query. It proves nothing: the vendor's server asks the API.
   */
  successUrl?: string;
  /**
   * opentill's own: the buyer's language for the checkout (a BCP 47 tag such as "de" or "pt-BR"; one opentill
   * does not speak falls back to the browser's). `data-ts-locale` on a button or the script tag does the same.
   */
  locale?: string;
  /**
   * opentill's own: the seats of a per-seat product, preset at the checkout (the buyer may change them within
   * the product's range). `data-ts-quantity` on a button does the same.
   */
  quantity?: number | string;
}

/** opentill's own: what `tc.on` handlers (and the script tag's `data-ts-event` function) receive. */
export interface CheckoutEvent {
  name: EventName;
  productId: string;
  /** The transaction a paid checkout made, else null. */
  transactionId: string | null;
  /** The transaction's status when paid, `DECLINED` when failed, else null. */
  status: string | null;
}

export type EventName = 'checkout.opened' | 'checkout.closed' | 'checkout.paid' | 'checkout.failed';
export type Handler = (event: CheckoutEvent) => void;

export type PrefillField =
  'firstName' | 'lastName' | 'email' | 'zipCode' | 'coupon' | 'payload' | 'locale' | 'quantity';
