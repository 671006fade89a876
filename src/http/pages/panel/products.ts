import type { Environment, Product } from '../../../domain/model.ts';
import { formatForBuyer } from '../../../domain/money/index.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { activationLimitField } from './activation-limit-field.ts';
import { csrfField } from './panel-layout.ts';
import { archiveForm, descriptionField, productImageForm } from './product-form-fields.ts';
import { byCurrency, priceText } from './price-lists.ts';
import { seatsFieldset } from './seats-field.ts';
import { FREQUENCY_WORDS, frequencyWord, typeWord } from './words.ts';

export interface ProductsView {
  environment: Environment;
  csrf: string;
  products: Product[];
  widgetUrl: string;
  paymentLink: (productId: string) => string;
  /** The form sent, when it is shown again with an error: what was typed stays. */
  form?: FormBody | undefined;
  /** Which form `form` is: 'new' or a product id. */
  formOf?: string | undefined;
  /** The vendor's locale (Accept-Language, else en-US), for amounts. */
  locale: string;
  /** Per subscription product, the plans its subscribers may switch to in their portal (docs/decisions.md §34). */
  switches: Record<string, string[]>;
}

/**
 * The plans a subscription's customers may switch to in their portal: the vendor's other subscriptions
 * on sale, ticked where allowed. Each box has its own name (`to-<id>`), as a form keeps one value per name.
 */
function switchesForm(p: Product, view: ProductsView): Html {
  const others = view.products.filter((o) => o.type === 'SUBSCRIPTION' && o.id !== p.id && !o.archivedAt);
  if (p.type !== 'SUBSCRIPTION' || others.length === 0) return html``;
  const allowed = new Set(view.switches[p.id] ?? []);
  return html`<details><summary>Plan switches (${allowed.size})</summary><form method="post" action="/panel/products/switches?env=${view.environment}" class="narrow" data-testid="switches">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}">
    <p class="muted">Subscribers of ${p.name} may switch to these plans on their management page: to a dearer plan at once, with what is left of their period counted; to a cheaper one when their period ends.</p>
    ${others.map((o) => html`<label class="check"><input type="checkbox" name="to-${o.id}" value="yes"${allowed.has(o.id) ? html` checked` : ''}> ${o.name} · ${frequencyWord(o.chargeFrequency)}</label>`)}
    <button type="submit">Save the plan switches</button></form></details>`;
}

function productRow(p: Product, view: ProductsView): Html {
  const snippet = `<script src="${view.widgetUrl}"></script>\n<span data-ts-price data-ts-product="${p.id}"></span>\n<button data-ts-button data-ts-product="${p.id}">Buy</button>`;
  const prices = byCurrency(p.prices)
    .map(([currency, minor]) => formatForBuyer(minor, currency, view.locale))
    .join(', ');
  const typed = view.formOf === p.id ? view.form : undefined;
  return html`<section class="box" data-testid="product" data-id="${p.id}"><strong>${p.name}</strong>
  <p class="muted">${typeWord(p.type)}${p.type === 'SUBSCRIPTION' ? ` · ${frequencyWord(p.chargeFrequency)}` : ''}${p.trialDays ? ` · ${p.trialDays}-day trial` : ''}${p.issuesLicences ? ' · licences' : ''} · ${prices}${p.archivedAt ? ' · archived: not sold (its sales go on)' : ''}</p>
  <p>ID <code id="id-${p.id}">${p.id}</code> <button type="button" class="link" data-copy="id-${p.id}">Copy</button></p>
  <p>Payment link <code id="link-${p.id}">${view.paymentLink(p.id)}</code> <button type="button" class="link" data-copy="link-${p.id}">Copy</button></p>
  <p>Script for your page <button type="button" class="link" data-copy="snippet-${p.id}">Copy</button></p><pre id="snippet-${p.id}" data-testid="snippet">${snippet}</pre>
  <details${typed ? html` open` : ''}><summary>Edit</summary><form method="post" action="/panel/products/edit?env=${view.environment}" class="narrow">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}">
    <label for="name-${p.id}">Name</label><input id="name-${p.id}" name="name" value="${typed?.name ?? p.name}" required maxlength="200">
    ${descriptionField(p, typed)}
    <label for="prices-${p.id}">Net prices, USD required</label><input id="prices-${p.id}" name="prices" value="${typed?.prices ?? priceText(p.prices)}" required>
    ${p.type === 'SUBSCRIPTION' ? html`<label for="trial-${p.id}">Trial days</label><input id="trial-${p.id}" name="trialDays" inputmode="numeric" value="${typed?.trialDays ?? String(p.trialDays)}">` : ''}
    <label class="check"><input type="checkbox" name="licences" value="yes"${(typed ? typed.licences === 'yes' : p.issuesLicences) ? html` checked` : ''}> Issue a licence key with each purchase</label>
    ${activationLimitField(`activationLimit-${p.id}`, p, typed)}
    ${seatsFieldset(`${p.id}-`, p, typed)}
    <p class="muted">New prices apply to new purchases and to renewals from now on.</p>
    <button type="submit">Save the product</button></form></details>${switchesForm(p, view)}${productImageForm(p, view)}${archiveForm(p, view)}</section>`;
}

export function productsContent(view: ProductsView): Html {
  const env = view.environment;
  const f = view.formOf === 'new' ? view.form : undefined;
  const option = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}"${selected === value ? html` selected` : ''}>${label}</option>`;
  return html`${view.products.length ? view.products.map((p) => productRow(p, view)) : html`<p class="muted">No ${env} products yet.</p>`}
  <details class="box"${f || !view.products.length ? html` open` : ''}><summary>New product</summary><form method="post" action="/panel/products?env=${env}" class="narrow">${csrfField(view.csrf)}
    <label for="name">Name</label><input id="name" name="name" required maxlength="200" value="${f?.name ?? ''}">
    ${descriptionField(undefined, f)}
    <label for="type">Type</label><select id="type" name="type">${option('ONETIME', 'One-time purchase', f?.type)}${option('SUBSCRIPTION', 'Subscription', f?.type)}${option('VAULTED', 'Saved card (charged by you later)', f?.type)}</select>
    <label for="frequency">Charged (subscriptions)</label><select id="frequency" name="frequency">${(['MONTHLY', 'YEARLY', 'HALF_YEARLY', 'WEEKLY', 'DAILY'] as const).map((k) => option(k, FREQUENCY_WORDS[k], f?.frequency))}</select>
    <label for="trialDays">Trial days (subscriptions)</label><input id="trialDays" name="trialDays" inputmode="numeric" value="${f?.trialDays ?? '0'}">
    <label for="prices">Net prices, USD required</label><input id="prices" name="prices" placeholder="USD 20.00, EUR 18.50" required value="${f?.prices ?? ''}">
    <label class="check"><input type="checkbox" name="licences" value="yes"${f?.licences === 'yes' ? html` checked` : ''}> Issue a licence key with each purchase</label>
    ${activationLimitField('activationLimit', undefined, f)}
    ${seatsFieldset('', undefined, f)}
    <button type="submit">Create the product</button></form></details>`;
}
