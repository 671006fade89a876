import type { Transaction } from '../../../domain/model.ts';
import type { SwitchOption } from '../../../domain/portal/index.ts';
import { countryName } from '../../../documents/country-names.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';
import { hidden, priceLine } from './manage-views.ts';

/**
 * The pages behind the management page's action links (docs/decisions.md §34): the cancellation's
 * confirmation, the billing details, the plan switch. Each posts to the management page with its
 * form token and goes back to it.
 */
export interface FormView {
  tr: Translator;
  vendorName: string;
  formToken: string;
  /** The management page, with the customer's `?locale=` if they chose one. */
  back: string;
  error?: string | undefined;
}

const backLink = (view: FormView) => html`<a class="back" href="${view.back}">${view.tr.t('manage.back')}</a>`;
const alert = (view: FormView) => (view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : '');

/** "Cancel X?": what ends when, the choice of now where the vendor allows it, and an optional reason. */
export function cancelPage(view: FormView, t: Transaction, cancelNow: boolean): Html {
  const { tr } = view;
  const active = t.status === 'SUBSCRIPTION_STATUS_ACTIVE' && t.nextCharge;
  const ends = active ? tr.t('manage.cancelAtEnd', { date: tr.date(t.nextCharge!) }) : tr.t('manage.cancelTrialNow');
  const what = t.type === 'VAULTED' ? tr.t('manage.cancelVaulted', { vendor: view.vendorName }) : ends;
  const when =
    active && cancelNow
      ? html`<fieldset><legend>${tr.t('manage.cancelWhen')}</legend>
      <label class="check"><input type="radio" name="when" value="end" checked> ${tr.t('manage.cancelWhenEnd', { date: tr.date(t.nextCharge!) })}</label>
      <label class="check"><input type="radio" name="when" value="now" data-testid="cancel-now"> ${tr.t('manage.cancelWhenNow')}</label></fieldset>`
      : '';
  return html`<h1>${tr.t('manage.cancelTitle', { product: t.productName })}</h1>${alert(view)}
  <p data-testid="cancel-what">${what}</p>
  <form method="post" action="${view.back}">${hidden(view.formToken, 'cancel', t.id)}${when}
  <label for="reason">${tr.t('manage.cancelReason')}</label>
  <textarea id="reason" name="reason" rows="3" maxlength="500" aria-describedby="reason-hint"></textarea>
  <p class="muted" id="reason-hint">${tr.t('manage.cancelReasonHint', { vendor: view.vendorName })}</p>
  <button type="submit" class="secondary" data-testid="confirm-cancel">${tr.t('manage.cancelConfirm')}</button></form>
  <p><a class="back" href="${view.back}">${tr.t('manage.keep')}</a></p>`;
}

/** What the billing form was sent with, to show again after a refusal. */
export interface BillingTyped {
  name?: string | undefined;
  company?: string | undefined;
  address?: string | undefined;
  vatId?: string | undefined;
}

/** The billing details: name, company, address, VAT ID; the country is the purchase's and stays. */
export function billingPage(view: FormView, t: Transaction, typed?: BillingTyped, invalid?: string): Html {
  const { tr } = view;
  const value = {
    name: typed?.name ?? t.buyerName ?? '',
    company: typed?.company ?? t.businessName ?? '',
    address: typed?.address ?? t.buyerAddress ?? '',
    vatId: typed?.vatId ?? t.buyerVatId ?? '',
  };
  const marked = (field: string) => (invalid === field ? html` aria-invalid="true" aria-describedby="form-error"` : '');
  return html`<h1>${tr.t('manage.billingTitle')}</h1>
  <p class="muted">${tr.t('manage.billingFor', { product: t.productName })}</p>
  ${view.error ? html`<div class="alert bad" role="alert" id="form-error">${view.error}</div>` : ''}
  <form method="post" action="${view.back}">${hidden(view.formToken, 'billing', t.id)}
  <label for="name">${tr.t('manage.billingName')}</label><input id="name" name="name" autocomplete="name" maxlength="200" value="${value.name}">
  <label for="company">${tr.t('manage.billingCompany')}</label><input id="company" name="company" autocomplete="organization" maxlength="200" value="${value.company}"${marked('businessName')}>
  <label for="address">${tr.t('manage.billingAddress')}</label><textarea id="address" name="address" rows="3" autocomplete="street-address"${marked('buyerAddress')}>${value.address}</textarea>
  <label for="vatId">${tr.t('manage.billingVatId')}</label><input id="vatId" name="vatId" dir="ltr" maxlength="40" value="${value.vatId}"${marked('vatId')}>
  <p class="muted">${tr.t('manage.billingCountry', { country: countryName(t.country, tr.lang) })}</p>
  <button type="submit" data-testid="save-billing">${tr.t('manage.billingSave')}</button></form>
  ${backLink(view)}`;
}

/** The plans the customer may switch to, each with what the switch means for them and its own button. */
export function switchPage(view: FormView, t: Transaction, options: SwitchOption[]): Html {
  const { tr } = view;
  const choices = options.map((o) => {
    const price = tr.t('common.recurringPrice', {
      price: tr.money(o.totalMinor, o.currency),
      every: tr.t('common.every', { frequency: o.chargeFrequency }),
    });
    const means = o.upgrade
      ? tr.t('manage.switchUpgrade', { date: tr.date(o.firstCharge) })
      : tr.t('manage.switchDowngrade', { date: tr.date(o.startsAt), current: t.productName });
    return html`<form method="post" action="${view.back}" class="box" data-testid="plan" data-product="${o.productId}">${hidden(view.formToken, 'switch', t.id)}<input type="hidden" name="productId" value="${o.productId}">
    <strong>${o.name}</strong><p class="muted">${price}</p><p>${means}</p>
    <button type="submit">${tr.t('manage.switchTo', { product: o.name })}</button></form>`;
  });
  return html`<h1>${tr.t('manage.switchTitle')}</h1>${alert(view)}
  <p>${tr.t('manage.switchCurrent', { product: t.productName, price: priceLine(tr, t) })}</p>
  ${choices.length ? choices : html`<p>${tr.t('manage.switchNone')}</p>`}
  ${backLink(view)}`;
}
