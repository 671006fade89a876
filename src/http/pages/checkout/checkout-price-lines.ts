import type { Offer } from '../../../domain/catalog/index.ts';
import { dueToday, type LastingDiscount } from '../../../domain/checkout/index.ts';
import type { Transaction } from '../../../domain/model.ts';
import type { PriceQuote } from '../../../domain/tax/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';
import { seatsLine } from './checkout-seats.ts';
import { couponTermsLine } from './coupon-words.ts';

// The words about a price that the form, its quote endpoint and the receipt share, in the buyer's language.

const DAY_MS = 86_400_000;

/** Between two sentences: a space, but none in Chinese and Japanese, whose full stop ends a sentence alone. */
const gap = (tr: Translator) => (/^(ja|zh)/.test(tr.lang) ? '' : ' ');

/** The tax's name in the buyer's words: the domain's names ('VAT', 'Sales tax', 'Reverse charge'), else as it is. */
export function taxLabel(tr: Translator, name: string): string {
  if (!name) return tr.t('checkout.tax');
  const id = name.toUpperCase().replace(/\s+/g, '_');
  return tr.t('checkout.taxName', { name: ['VAT', 'GST', 'SALES_TAX', 'REVERSE_CHARGE'].includes(id) ? id : name });
}

const percent = (tr: Translator, rate: string) =>
  new Intl.NumberFormat(tr.lang, { style: 'percent', maximumFractionDigits: 3 }).format(Number(rate));

/** "Free for 14 days. Then $9.00 every month from December 3, 2026.": the checkout's trial words, which the receipt repeats. */
export function trialWords(
  tr: Translator,
  product: { trialDays: number; chargeFrequency: string },
  amount: string,
  firstCharge: Date | string,
): { free: string; then: string } {
  return {
    free: tr.t('common.trialFree', { days: product.trialDays }),
    then: tr.t('common.trialThen', {
      price: amount,
      every: tr.t('common.every', { frequency: product.chargeFrequency }),
      date: tr.date(firstCharge),
    }),
  };
}

/** The Pay button says what happens today (the domain's dueToday: nothing is charged in a trial or a switch). */
export function payLabel(tr: Translator, offer: Offer, quote: PriceQuote): string {
  if (offer.customized?.transactionIdToMigrate) return tr.t('checkout.switchSubscription');
  if (dueToday(offer, quote.totalMinor).trial) return tr.t('checkout.startTrial');
  return quote.totalMinor === 0
    ? tr.t('checkout.saveCard')
    : tr.t('checkout.pay', { amount: tr.money(quote.totalMinor, quote.currency) });
}

/** The price table (and what a trial charges when): shown in the page, and sent again by the quote endpoint when the country, ZIP or coupon change. */
export function priceLines(
  tr: Translator,
  offer: Offer,
  quote: PriceQuote,
  now: Date,
  lasting?: LastingDiscount | null,
): Html {
  const money = (minor: number) => tr.money(minor, quote.currency);
  const { product } = offer;
  const every =
    product.type === 'SUBSCRIPTION' ? tr.t('common.every', { frequency: product.chargeFrequency }) : undefined;
  const today = dueToday(offer, quote.totalMinor);
  const tax = quote.taxName
    ? tr.t('checkout.taxWithRate', { name: taxLabel(tr, quote.taxName), rate: percent(tr, quote.taxRate) })
    : tr.t('checkout.tax');
  const trial = today.trial
    ? trialWords(tr, product, money(quote.totalMinor), new Date(now.getTime() + product.trialDays * DAY_MS))
    : undefined;
  return html`<table aria-label="${tr.t('checkout.priceTable')}">
    ${seatsLine(tr, offer, quote)}${
      quote.discountMinor > 0
        ? html`<tr><td>${tr.t('checkout.price')}</td><td data-testid="list">${money(quote.netMinor + quote.discountMinor)}</td></tr>
    <tr><td>${tr.t('checkout.discount')}</td><td data-testid="discount">−${money(quote.discountMinor)}</td></tr>
    <tr><td>${tr.t('checkout.net')}</td><td data-testid="net">${money(quote.netMinor)}</td></tr>`
        : html`<tr><td>${tr.t('checkout.price')}</td><td data-testid="net">${money(quote.netMinor)}</td></tr>`
    }
    <tr><td>${tax}${quote.taxEstimated ? html` <span class="muted" data-testid="tax-estimated">${tr.t('checkout.taxEstimated')}</span>` : ''}</td><td data-testid="tax">${money(quote.taxMinor)}</td></tr>
    <tr class="total"><td>${every ? tr.t('checkout.totalEvery', { every }) : tr.t('checkout.total')}</td><td data-testid="total">${money(quote.totalMinor)}</td></tr>
    ${today.paidLater ? html`<tr class="total"><td>${tr.t('checkout.dueToday')}</td><td data-testid="due-today">${money(0)}</td></tr>` : ''}
  </table>
  ${couponTermsLine(tr, lasting)}
  ${trial ? html`<p>${trial.free}${gap(tr)}<span data-testid="then">${trial.then}</span>${gap(tr)}${tr.t('checkout.trialCancel')}</p>` : ''}
  ${quote.taxName === 'Reverse charge' ? reverseChargeNote(tr) : ''}
  ${product.type === 'VAULTED' ? html`<p class="muted">${tr.t('checkout.vaulted', { product: product.name })}</p>` : ''}`;
}

/** The reverse-charge note: no VAT is charged, and why. */
export const reverseChargeNote = (tr: Translator): Html =>
  html`<p class="muted" data-testid="reverse-charge">${tr.t('checkout.reverseCharge')}</p>`;

/** What a receipt says about a subscription's next charge: in a trial the checkout's own trial words, else the date. */
export function receiptTrialThen(tr: Translator, t: Transaction): string | undefined {
  if (t.status !== 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL' || !t.nextCharge) return undefined;
  return tr.t('common.trialThen', {
    price: tr.money(t.netMinor + t.taxMinor, t.currency),
    every: tr.t('common.every', { frequency: t.chargeFrequency }),
    date: tr.date(t.nextCharge),
  });
}
