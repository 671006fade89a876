import { RECURRING_FREQUENCIES, type Coupon, type Environment, type Product } from '../../../domain/model.ts';
import type { NewCoupon } from '../../../domain/catalog/index.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { csrfField } from './panel-layout.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import { byCurrency } from './price-lists.ts';
import { frequencyWord } from './words.ts';

interface CouponsView {
  environment: Environment;
  csrf: string;
  coupons: Coupon[];
  products: Product[];
  form?: FormBody | undefined;
  /** The vendor's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
}

/** How long a coupon lasts and whom it is for, in the panel's words (docs/decisions.md §38). */
function termsOf(c: Coupon, view: CouponsView): string[] {
  const name = (id: string) => view.products.find((p) => p.id === id)?.name ?? id;
  const lasts: Record<Coupon['duration'], string> = {
    once: 'the first payment',
    forever: 'every payment',
    repeating: `the first ${c.durationPeriods} billing periods`,
  };
  const terms = [lasts[c.duration]];
  terms.push(c.maxRedemptions !== null ? `${c.redemptions} of ${c.maxRedemptions} used` : `${c.redemptions} used`);
  if (c.maxPerCustomer !== null) terms.push(`${c.maxPerCustomer} per customer`);
  if (c.firstPurchaseOnly) terms.push('first purchase only');
  if (c.otherProductIds.length) terms.push(`also ${c.otherProductIds.map(name).join(', ')}`);
  if (c.frequencies) terms.push(`${c.frequencies.map((q) => frequencyWord(q).toLowerCase()).join(', ')} only`);
  if (c.startsAt) terms.push(`from ${c.startsAt.slice(0, 10)}`);
  return terms;
}

function couponRow(c: Coupon, view: CouponsView): Html {
  const product = view.products.find((p) => p.id === c.productId);
  const amounts = byCurrency(c.amountsOff).map(([currency, minor]) => formatForBuyer(minor, currency, view.locale));
  const off = c.percentOff !== null ? `${c.percentOff}% off` : `${amounts.join(', ')} off`;
  return html`<tr data-testid="coupon"><td><code>${c.code}</code> · ${product?.name ?? c.productId}<br><span class="muted">${off}${c.expiresAt ? `, until ${c.expiresAt.slice(0, 10)}` : ''}${c.revokedAt ? ', revoked' : ''}</span><br><span class="muted" data-testid="coupon-terms">${termsOf(c, view).join(' · ')}</span></td>
    <td>${c.revokedAt ? '' : html`<form method="post" action="/panel/coupons?env=${view.environment}">${csrfField(view.csrf)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="id" value="${c.id}"><button type="submit" class="link">Revoke</button></form>`}</td></tr>`;
}

const DURATIONS: [string, string][] = [
  ['once', 'The first payment'],
  ['repeating', 'A number of billing periods'],
  ['forever', 'Every payment'],
];

/** The lasting terms of the new-coupon form; each checkbox has its own name, as a form keeps one value per name. */
function termsFields(view: CouponsView): Html {
  const f = view.form;
  const value = (name: string) => f?.[name] ?? '';
  return html`<label for="coupon-duration">Discounts</label><select id="coupon-duration" name="duration">${DURATIONS.map(([v, label]) => html`<option value="${v}"${f?.duration === v ? html` selected` : ''}>${label}</option>`)}</select>
    <label for="coupon-periods">Billing periods, for a number of them (the first payment is the first)</label><input id="coupon-periods" name="durationPeriods" type="number" min="1" max="999" inputmode="numeric" value="${value('durationPeriods')}">
    <label for="coupon-starts">Starts (optional)</label><input id="coupon-starts" name="startsAt" type="date" value="${value('startsAt')}">
    <label for="coupon-expires">Expires (optional)</label><input id="coupon-expires" name="expiresAt" type="date" value="${value('expiresAt')}">
    <label for="coupon-max">Uses in all (optional)</label><input id="coupon-max" name="maxRedemptions" type="number" min="1" inputmode="numeric" value="${value('maxRedemptions')}">
    <label for="coupon-per-customer">Uses per customer e-mail (optional)</label><input id="coupon-per-customer" name="maxPerCustomer" type="number" min="1" inputmode="numeric" value="${value('maxPerCustomer')}">
    <label class="check"><input type="checkbox" name="firstPurchaseOnly" value="yes"${f?.firstPurchaseOnly === 'yes' ? html` checked` : ''}> Only for a customer's first purchase from you</label>
    <fieldset><legend>Also applies to (optional)</legend>${view.products.map((p) => html`<label class="check"><input type="checkbox" name="also-${p.id}" value="yes"${f?.[`also-${p.id}`] === 'yes' ? html` checked` : ''}> ${p.name}</label>`)}</fieldset>
    <fieldset><legend>Only for subscriptions charged (optional)</legend>${RECURRING_FREQUENCIES.map((q) => html`<label class="check"><input type="checkbox" name="frequency-${q}" value="yes"${f?.[`frequency-${q}`] === 'yes' ? html` checked` : ''}> ${frequencyWord(q)}</label>`)}</fieldset>`;
}

export function couponsContent(view: CouponsView): Html {
  const env = view.environment;
  const f = view.form;
  return html`${
    view.coupons.length
      ? html`<table class="list" aria-label="Coupons">${view.coupons.map((c) => couponRow(c, view))}</table>`
      : html`<p class="muted">No ${env} coupons yet.</p>`
  }
  ${
    view.products.length
      ? html`<details class="box"${f ? html` open` : ''}><summary>New coupon</summary><form method="post" action="/panel/coupons?env=${env}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="action" value="create">
    <label for="coupon-product">Product</label><select id="coupon-product" name="productId">${view.products.map((p) => html`<option value="${p.id}"${f?.productId === p.id ? html` selected` : ''}>${p.name}</option>`)}</select>
    <label for="coupon-code">Code</label><input id="coupon-code" name="code" required maxlength="32" placeholder="LAUNCH25" value="${f?.code ?? ''}">
    <label for="coupon-off">Discount: a percentage, or amounts off</label><input id="coupon-off" name="off" required placeholder="25% or USD 5, EUR 4.50" value="${f?.off ?? ''}">
    ${termsFields(view)}
    <button type="submit">Create the coupon</button></form></details>`
      : html`<p class="muted">Create a product first: a coupon belongs to a product.</p>`
  }`;
}

/** A whole number typed into the form, or left out when empty (the domain says what is wrong with it). */
const count = (text: string | undefined) => (text?.trim() ? Number(text.trim()) : undefined);

/** The lasting terms the form sent, for the coupon service (which checks them). */
export function couponTermsFromForm(form: FormBody, products: Product[]): Omit<NewCoupon, 'productId' | 'code'> {
  return {
    duration: form.duration || undefined,
    durationPeriods: form.duration === 'repeating' ? count(form.durationPeriods) : undefined,
    maxRedemptions: count(form.maxRedemptions),
    maxPerCustomer: count(form.maxPerCustomer),
    firstPurchaseOnly: form.firstPurchaseOnly === 'yes',
    otherProductIds: products.filter((p) => form[`also-${p.id}`] === 'yes').map((p) => p.id),
    frequencies: RECURRING_FREQUENCIES.filter((q) => form[`frequency-${q}`] === 'yes'),
    startsAt: form.startsAt || undefined,
  };
}
