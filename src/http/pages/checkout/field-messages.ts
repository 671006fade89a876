/**
 * What each field of the checkout form needs, the same words from the server (checkout-views.ts
 * re-exports them) and from the form's own script (src/http/pages/browser/checkout-form.ts bundles
 * this file, so it imports nothing).
 */
export const FIELD_MESSAGES = {
  email: 'Enter an e-mail address, such as you@example.com.',
  zipCode: 'Enter a 5-digit ZIP code, such as 94103.',
  cardNumber: 'Enter the card number as it is printed on the card.',
  cardExpiry: 'Enter the expiry as MM/YY, such as 04/29.',
  cardCvc: 'Enter the 3 or 4 digit security code (CVC) from the back of the card.',
} as const;
