import { pageData } from './page-data.ts';
import { messageOf, type StripeElements, type StripeError, type StripeFactory, type StripeJs } from './stripe.ts';

/**
 * The processor's card element (Stripe's Payment Element; its script is the processor's, loaded by
 * URL): mounted with the amount priced here, it is confirmed against a session opentill starts on
 * Pay, for the amount opentill priced; 3-D Secure happens inside it. The card goes from the element
 * to the processor; opentill's page never holds it. After a decline the customer may try another
 * card in the same session; the details above are then fixed (reload the page to change them).
 * Its settings come from the page's `opentill-processor` data block (written only when a card is needed).
 * Besides cards it offers the other ways to pay Stripe shows for the amount (SEPA, PayPal, wallets);
 * one that leaves the page (PayPal) comes back to the confirmation URL.
 */
export interface ProcessorData {
  publicKey: string;
  mode: 'payment' | 'setup';
  amount: number;
  currency: string;
  saveForLater: boolean;
  sessionUrl: string;
}

/** What opentill answers when it starts the session. */
interface Session {
  redirect?: string;
  message?: string;
  clientSecret: string;
  confirmUrl: string;
  mode: 'payment' | 'setup';
}

declare const Stripe: StripeFactory;

const config = pageData<ProcessorData>('opentill-processor');
if (config) processorElement(config);

/**
 * The page's language as Stripe.js names it, so the element speaks the buyer's language too: Stripe has
 * "pt" for Portugal and "zh" for Simplified Chinese; the pseudo-locale is English to it.
 */
export function stripeLocale(lang: string): string {
  const map: Record<string, string> = { 'pt-PT': 'pt', 'zh-CN': 'zh', 'en-XA': 'en' };
  return map[lang] ?? (lang || 'auto');
}

function processorElement(c: ProcessorData) {
  const stripe = Stripe(c.publicKey);
  // No payment method types: the element shows the account's dynamic methods for the currency, only
  // reusable ones when the method is kept (setupFutureUsage, setup mode), as the session asks (§37).
  const o: Record<string, unknown> = {
    mode: c.mode,
    currency: c.currency,
    locale: stripeLocale(document.documentElement.lang),
  };
  if (c.mode === 'payment') {
    o.amount = c.amount;
    if (c.saveForLater) o.setupFutureUsage = 'off_session';
  }
  const elements = stripe.elements(o);
  elements.create('payment').mount('#payment-element');
  const form = document.getElementById('checkout') as HTMLFormElement;
  const pay = document.getElementById('pay') as HTMLButtonElement;
  const err = document.getElementById('card-error')!;
  let started: Session | null = null;
  form.addEventListener('opentill:quote', (e) => {
    const q = (e as CustomEvent<{ currency: string; totalMinor: number }>).detail;
    const u: { currency: string; amount?: number } = { currency: q.currency.toLowerCase() };
    if (c.mode === 'payment' && q.totalMinor > 0) u.amount = q.totalMinor;
    if (c.mode !== 'payment' || u.amount) elements.update(u);
  });
  const fail = (m: string) => {
    err.textContent = m;
    err.hidden = false;
    pay.disabled = false;
  };
  const start = () =>
    startSession(c.sessionUrl, form).then((j) => {
      started = j;
      return j;
    });
  form.addEventListener('submit', (e) => {
    if (form.coupon && form.coupon.value.trim().toUpperCase() !== form.appliedCoupon.value.toUpperCase()) return;
    e.preventDefault();
    if (pay.disabled) return;
    pay.disabled = true;
    err.hidden = true;
    elements
      .submit()
      .then((r) => {
        if (r.error) throw r.error;
        return started || start();
      })
      .then((j) => confirm(stripe, elements, j))
      .catch((e: unknown) => {
        // A card the processor declined: inside the overlay, the vendor's page hears `failed` (embed.ts).
        if ((e as StripeError | null)?.type === 'card_error') document.dispatchEvent(new Event('opentill:declined'));
        fail(messageOf(e, 'The payment did not go through; try again.'));
      });
  });
}

/** Starts the payment's session at opentill with the form's fields, which are then fixed; a redirect leaves the page. */
function startSession(url: string, form: HTMLFormElement): Promise<Session> {
  const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  return fetch(url, { method: 'POST', headers, body }).then((res) =>
    res
      .json()
      .catch(() => ({}))
      .then((j: Session) => {
        if (j.redirect) {
          location.assign(j.redirect);
          return new Promise<Session>(() => {});
        }
        if (!res.ok || !j.clientSecret) throw { message: j.message || 'The payment could not be started; try again.' };
        form.querySelectorAll<HTMLInputElement>('input,select').forEach((i) => {
          i.readOnly = true;
        });
        return j;
      }),
  );
}

/** Confirms the session in the element (3-D Secure inside it), then goes to opentill's confirmation. */
function confirm(stripe: StripeJs, elements: StripeElements, j: Session) {
  const a = {
    elements,
    clientSecret: j.clientSecret,
    confirmParams: { return_url: new URL(j.confirmUrl, location.href).href },
    redirect: 'if_required',
  };
  return (j.mode === 'payment' ? stripe.confirmPayment(a) : stripe.confirmSetup(a)).then((r) => {
    if (r.error) throw r.error;
    location.assign(j.confirmUrl);
  });
}
