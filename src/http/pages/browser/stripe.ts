/** What the page scripts call of the processor's script (Stripe.js, loaded by URL before them): its global `Stripe`. */
export interface StripeError {
  message?: string;
  /** `card_error`: the card was declined (not a field left incomplete, nor the network). */
  type?: string;
}

export interface StripeResult {
  error?: StripeError;
}

export interface StripeElements {
  create(type: 'payment'): { mount(target: string | Element): void };
  update(options: object): void;
  submit(): Promise<StripeResult>;
}

export interface StripeJs {
  elements(options: object): StripeElements;
  confirmPayment(options: object): Promise<StripeResult>;
  confirmSetup(options: object): Promise<StripeResult>;
}

export type StripeFactory = (publicKey: string) => StripeJs;

/** What a failure says: the processor's (or opentill's) message, else the page's own words. */
export const messageOf = (error: unknown, otherwise: string) =>
  (error as StripeError | null | undefined)?.message || otherwise;
