/** A page's hidden form fields by name, as a browser sends them back (the checkout's quote, the panel's and admin tool's tokens). */
export function hiddenFields(page: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) form[m[1]!] = m[2]!;
  return form;
}

/**
 * The hosted checkout's form as a browser fills it in, for the benches and tests that pay through
 * it: the page's hidden fields (the quote it shows), then a buyer paying with the sandbox's test card
 * that always succeeds. `token` is the form's one-time token: the same token is the same purchase.
 */
export function paidForm(
  hidden: Record<string, string>,
  buyer: { token: string; email: string; firstName: string; lastName: string },
): string {
  return new URLSearchParams({
    ...hidden,
    ...buyer,
    country: 'DE',
    cardNumber: '4242424242424242',
    cardExpiry: '12/34',
    cardCvc: '123',
  }).toString();
}
