import type { FieldMessages } from '../checkout/field-messages.ts';
import { pageData } from './page-data.ts';

/**
 * The checkout form's own script (inline, or served as checkout.js when the card is typed into the
 * form): the price, tax and total follow the country, ZIP code and coupon (asked of the quote endpoint,
 * the one pricing function), and so do the hidden expected total and, through the `opentill:quote`
 * event, the processor's card element; a Pay pressed while a new price is on its way waits for it.
 * Every invalid field is marked at once (`aria-invalid`, a message it is described by) and the first
 * one focused, with the page's words for what each needs (the `opentill-field-messages` data block, in
 * the buyer's language). The card number is spaced in groups of four and its brand shown.
 */

/** A field of the form (a select answers `readOnly` with undefined, as an input that is not read-only). */
type Field = HTMLInputElement;

/** The quote endpoint's answer. */
interface Quote {
  error?: string;
  message?: string;
  couponError?: string;
  vatIdError?: string;
  html: string;
  currency: string;
  totalMinor: number;
  coupon?: string;
  payLabel: string;
}

const messages = pageData<FieldMessages>('opentill-field-messages') ?? ({} as FieldMessages);
const form = document.getElementById('checkout') as HTMLFormElement | null;
if (form && form.getAttribute('data-quote')) checkoutForm(form);

function luhn(digits: string) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let x = +digits[digits.length - 1 - i]!;
    if (i % 2) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
}

function brandOf(digits: string) {
  if (/^4/.test(digits)) return 'Visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'Mastercard';
  if (/^3[47]/.test(digits)) return 'American Express';
  if (/^6(011|5)/.test(digits)) return 'Discover';
  return '';
}

/** Reading and marking the form's fields. */
function fieldsOf(f: HTMLFormElement) {
  const el = (n: string) => f.elements.namedItem(n) as Field | null;
  const v = (n: string) => {
    const e = el(n);
    return e && e.value ? e.value.trim() : '';
  };
  const sel = () => {
    const e = el('country');
    return e && e.tagName === 'SELECT' ? e : null;
  };
  const mark = (n: string, text?: string) => {
    const e = el(n);
    if (!e) return;
    const id = `${n}-error`;
    let p = document.getElementById(id);
    if (text) {
      if (!p) {
        p = document.createElement('p');
        p.className = 'field-error';
        p.id = id;
        e.insertAdjacentElement('afterend', p);
      }
      p.textContent = text;
      e.setAttribute('aria-invalid', 'true');
      e.setAttribute('aria-describedby', id);
    } else {
      if (p) p.remove();
      e.removeAttribute('aria-invalid');
      e.removeAttribute('aria-describedby');
    }
  };
  return { el, v, sel, mark };
}

type Fields = ReturnType<typeof fieldsOf>;

/** Every invalid field marked; the first of them, or null. */
function check({ el, v, sel, mark }: Fields, country: string | null): Field | null {
  const bad: Field[] = [];
  const t = (n: string, ok: boolean | null, message?: string) => {
    const e = el(n);
    if (!e || e.readOnly) return;
    if (ok !== null) mark(n, ok ? '' : message);
    if (e.getAttribute('aria-invalid') === 'true') bad.push(e);
  };
  t('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v('email')), messages.email);
  t('country', null);
  const zipCountry = sel() ? sel()!.value : country;
  t('zipCode', !v('zipCode') || zipCountry !== 'US' || /^\d{5}(-?\d{4})?$/.test(v('zipCode')), messages.zipCode);
  t('coupon', null);
  const digits = v('cardNumber').replace(/[\s-]/g, '');
  t('cardNumber', /^\d{12,19}$/.test(digits) && luhn(digits), messages.cardNumber);
  t('cardExpiry', /^(0?[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/.test(v('cardExpiry')), messages.cardExpiry);
  t('cardCvc', /^\d{3,4}$/.test(v('cardCvc')), messages.cardCvc);
  return bad[0] || null;
}

function checkoutForm(f: HTMLFormElement) {
  const quoteUrl = f.getAttribute('data-quote')!;
  const country = f.getAttribute('data-country');
  const box = document.getElementById('price')!;
  const pay = document.getElementById('pay')!;
  const fields = fieldsOf(f);
  const { el, v, sel, mark } = fields;
  let pending: Promise<void> | null = null;
  let seq = 0;
  const shown = (j: Quote) => {
    mark('country', '');
    mark('zipCode', '');
    mark('coupon', j.couponError || '');
    mark('vatId', j.vatIdError || '');
    if (el('quantity')) mark('quantity', '');
    box.innerHTML = j.html;
    el('expectedCurrency')!.value = j.currency;
    el('expectedTotal')!.value = String(j.totalMinor);
    el('appliedCoupon')!.value = j.coupon || '';
    pay.textContent = j.payLabel;
    f.dispatchEvent(new CustomEvent('opentill:quote', { detail: j }));
  };
  const quote = (e?: Event) => {
    const n = ++seq;
    const w = (e && e.target && (e.target as Field).name) || 'zipCode';
    const q = new URLSearchParams({ zipCode: v('zipCode'), coupon: v('coupon'), vatId: v('vatId') });
    if (sel()) q.set('country', sel()!.value);
    // Seats (docs/decisions.md §39): the price lines follow the quantity chosen.
    if (el('quantity')) q.set('quantity', v('quantity'));
    // The quote URL may carry the buyer's language already (`?locale=`).
    const p: Promise<void> = fetch(`${quoteUrl}${quoteUrl.indexOf('?') < 0 ? '?' : '&'}${q}`, {
      headers: { accept: 'application/json' },
    })
      .then((r) => r.json() as Promise<Quote>)
      .then((j) => {
        if (n !== seq) return;
        if (j.error) return mark(w, j.message);
        shown(j);
      })
      .catch(() => {})
      .then(() => {
        if (pending === p) pending = null;
      });
    pending = p;
  };
  ['country', 'zipCode', 'coupon', 'vatId', 'quantity'].forEach((n) => {
    const e = el(n);
    if (e && !e.readOnly) e.addEventListener('change', quote);
  });
  const coupon = el('coupon');
  if (coupon)
    coupon.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        quote(e);
      }
    });
  const cardNumber = el('cardNumber');
  const brand = document.getElementById('card-brand')!;
  if (cardNumber)
    cardNumber.addEventListener('input', () => {
      const d = cardNumber.value.replace(/\D/g, '').slice(0, 19);
      if (cardNumber.selectionStart === cardNumber.value.length) cardNumber.value = d.replace(/(\d{4})(?=\d)/g, '$1 ');
      brand.textContent = brandOf(d);
    });
  f.addEventListener('submit', (e) => {
    if (pending) {
      e.preventDefault();
      e.stopImmediatePropagation();
      void pending.then(() => f.requestSubmit());
      return;
    }
    const b = check(fields, country);
    if (b) {
      e.preventDefault();
      e.stopImmediatePropagation();
      b.focus();
    }
  });
}
