import { pageData } from './page-data.ts';
import { messageOf, type StripeElements, type StripeFactory, type StripeJs } from './stripe.ts';

/**
 * The management page's script with a processor that takes cards in the browser (Stripe.js's calls).
 * - "Confirm the payment" of a renewal the bank holds: asks opentill for the payment's client secret,
 *   lets the processor run the bank's check in its own frame (`confirmPayment`), then posts the page's
 *   form (`authenticated`), and opentill asks the processor whether it is paid.
 * - "Change the card": the processor's element in setup mode, mounted when the section is opened; Save
 *   starts a setup session at opentill, confirms it in the element (`confirmSetup`), then posts the
 *   form with the session's signed token (`card-complete`). The card goes to the processor only.
 * Should the processor send the customer away to finish (a redirect method), its return URL carries
 * the same outcome back to the page. Without this script the buttons stay disabled and the page says
 * the card field needs JavaScript. Its settings come from the page's `opentill-manage` data block.
 */
export interface ManageData {
  publicKey: string;
  authenticationUrl: string;
  cardSessionUrl: string;
}

/** What opentill answers when asked for a session. */
interface Answer {
  message?: string;
  clientSecret: string;
  paymentMethod?: string;
  cardSession: string;
}

declare const Stripe: StripeFactory;

const field = (form: Element, name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]`)!;
const back = (q: Record<string, string>) =>
  `${location.origin}${location.pathname}?${new URLSearchParams(q).toString()}`;
const show = (el: HTMLElement, m: string) => {
  el.textContent = m;
  el.hidden = false;
};

function ask(url: string, form: HTMLFormElement): Promise<Answer> {
  const body = new URLSearchParams({
    formToken: field(form, 'formToken').value,
    transactionId: field(form, 'transactionId').value,
  });
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }).then(
    (res) =>
      res
        .json()
        .catch(() => ({}))
        .then((j: Answer) => {
          if (!res.ok) throw { message: j.message || 'Something went wrong; reload the page and try again.' };
          return j;
        }),
  );
}

function confirmPaymentForm(c: ManageData, stripe: StripeJs, form: HTMLFormElement) {
  const btn = form.querySelector('button')!;
  const err = form.querySelector<HTMLElement>('.confirm-error')!;
  const id = field(form, 'transactionId').value;
  btn.disabled = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (btn.disabled) return;
    btn.disabled = true;
    err.hidden = true;
    ask(c.authenticationUrl, form)
      .then((j) => {
        const p: Record<string, string> = { return_url: back({ confirmed: id }) };
        if (j.paymentMethod) p.payment_method = j.paymentMethod;
        return stripe.confirmPayment({ clientSecret: j.clientSecret, confirmParams: p, redirect: 'if_required' });
      })
      .then((r) => {
        if (r.error) throw r.error;
        form.submit();
      })
      .catch((e: unknown) => {
        show(err, messageOf(e, 'The payment was not confirmed; try again.'));
        btn.disabled = false;
      });
  });
}

function cardChangeForm(c: ManageData, stripe: StripeJs, form: HTMLFormElement) {
  const btn = form.querySelector('button')!;
  const err = form.querySelector<HTMLElement>('.card-error')!;
  const id = field(form, 'transactionId').value;
  const details = form.closest('details');
  let elements: StripeElements | null = null;
  let started: Answer | null = null;
  const mount = () => {
    if (elements) return;
    elements = stripe.elements({ mode: 'setup', currency: form.getAttribute('data-currency') });
    elements.create('payment').mount(form.querySelector('[data-card-element]')!);
    btn.disabled = false;
  };
  if (!details || details.open) mount();
  else
    details.addEventListener('toggle', () => {
      if (details.open) mount();
    });
  const setUp = (els: StripeElements, j: Answer) => {
    const confirmParams = { return_url: back({ transactionId: id, cardSession: j.cardSession }) };
    return stripe.confirmSetup({ elements: els, clientSecret: j.clientSecret, confirmParams, redirect: 'if_required' });
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (btn.disabled || !elements) return;
    const els = elements;
    btn.disabled = true;
    err.hidden = true;
    els
      .submit()
      .then((r) => {
        if (r.error) throw r.error;
        return (
          started ||
          ask(c.cardSessionUrl, form).then((j) => {
            started = j;
            return j;
          })
        );
      })
      .then((j) =>
        setUp(els, j).then((r) => {
          if (r.error) throw r.error;
          field(form, 'cardSession').value = j.cardSession;
          form.submit();
        }),
      )
      .catch((e: unknown) => {
        show(err, messageOf(e, 'The card was not saved; try again.'));
        btn.disabled = false;
      });
  });
}

const config = pageData<ManageData>('opentill-manage');
if (config && typeof Stripe === 'function') {
  const stripe = Stripe(config.publicKey);
  document
    .querySelectorAll<HTMLFormElement>('form[data-confirm-payment]')
    .forEach((form) => confirmPaymentForm(config, stripe, form));
  document
    .querySelectorAll<HTMLFormElement>('form[data-card-change]')
    .forEach((form) => cardChangeForm(config, stripe, form));
}
