import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

/*
 * The domain's refusals and the card network's declines are English sentences (the API's error messages
 * stay English, docs/decisions.md §32). Those a buyer meets at the checkout are said again here in the
 * buyer's language; one not listed is shown as it is, marked English (`lang="en"`), so a screen reader
 * reads it in the right voice (docs/decisions.md §33).
 */
type Say = (tr: Translator, match: RegExpExecArray) => string;

const KNOWN: readonly [RegExp, Say][] = [
  [/^The coupon "(.*)" is not valid for this product\.$/s, (tr, m) => tr.t('checkout.couponInvalid', { code: m[1] })],
  [/^The coupon "(.*)" has expired\.$/s, (tr, m) => tr.t('checkout.couponExpired', { code: m[1] })],
  // A lasting coupon's refusals (docs/decisions.md §38).
  [/^The coupon "(.*)" is not valid yet\.$/s, (tr, m) => tr.t('checkout.couponNotYet', { code: m[1] })],
  [/^The coupon "(.*)" has been used up\.$/s, (tr, m) => tr.t('checkout.couponUsedUp', { code: m[1] })],
  [
    /^The coupon "(.*)" has already been used with this e-mail address\.$/s,
    (tr, m) => tr.t('checkout.couponUsedByEmail', { code: m[1] }),
  ],
  [
    /^The coupon "(.*)" is for a first purchase only\.$/s,
    (tr, m) => tr.t('checkout.couponFirstPurchase', { code: m[1] }),
  ],
  [
    /^Too many coupon codes that do not work were tried; try a coupon again in (\d+) minutes?\.$/,
    (tr, m) => tr.t('checkout.couponBlocked', { minutes: Number(m[1]) }),
  ],
  [/^(The card was declined|Your card was declined)\.$/, (tr) => tr.t('checkout.declineGeneric')],
  [/^(The card has|Your card has) insufficient funds\.$/, (tr) => tr.t('checkout.declineFunds')],
  [/^(The card has|Your card has) expired\.$/, (tr) => tr.t('checkout.declineExpired')],
  [/^The card number is not valid\.$/, (tr) => tr.t('checkout.declineInvalid')],
  [/^This payment link is for another e-mail address\.$/, (tr) => tr.t('checkout.emailMismatch')],
  [/^This payment link has expired\./, (tr) => tr.t('checkout.expiredText')],
  // English keeps the check's own reason ("…does not have the format of a VAT ID from DE"); others say it generally.
  [/^VAT ID: /, (tr, m) => (tr.lang === 'en' ? m.input : tr.t('checkout.fieldVatId'))],
  [/^Enter the company name that goes with the VAT ID\.$/, (tr) => tr.t('checkout.fieldCompanyName')],
  [/^Enter the company's street and city/, (tr) => tr.t('checkout.fieldCompanyAddress')],
];

/** An English sentence of the domain's as the buyer reads it: translated when known, else as it is, marked English. */
export function buyerWords(tr: Translator, message: string): string | Html {
  for (const [pattern, say] of KNOWN) {
    const match = pattern.exec(message);
    if (match) return say(tr, match);
  }
  return tr.lang === 'en' ? message : html`<span lang="en">${message}</span>`;
}

/** Plain text of buyerWords, for JSON answers read by the page's script (an untranslated sentence stays English). */
export const buyerText = (tr: Translator, message: string): string => {
  const said = buyerWords(tr, message);
  return typeof said === 'string' ? said : message;
};
