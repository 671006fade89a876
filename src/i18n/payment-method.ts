import type { Translator } from './translator.ts';

/** Card networks as their owners write them; the processor sends lower-case ids ("visa", "amex"). */
const BRAND_NAMES: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  american_express: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  diners_club: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  cartes_bancaires: 'Cartes Bancaires',
  eftpos_au: 'eftpos',
  interac: 'Interac',
};

/** A card network's name for people: "visa" -> "Visa"; an unknown id is capitalised word by word. */
export function brandName(brand: string): string {
  const id = brand.trim().toLowerCase();
  return BRAND_NAMES[id] ?? id.replace(/[_-]+/g, ' ').replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

/** Methods and wallets beyond cards, as their owners write them, in every language (§37). */
const METHOD_NAMES: Record<string, string> = {
  paypal: 'PayPal',
  link: 'Link',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  samsung_pay: 'Samsung Pay',
  amazon_pay: 'Amazon Pay',
  revolut_pay: 'Revolut Pay',
  cashapp: 'Cash App Pay',
  klarna: 'Klarna',
  affirm: 'Affirm',
  afterpay_clearpay: 'Afterpay',
  ideal: 'iDEAL',
  bancontact: 'Bancontact',
  eps: 'EPS',
  p24: 'Przelewy24',
  blik: 'BLIK',
  twint: 'TWINT',
  mobilepay: 'MobilePay',
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  kakao_pay: 'Kakao Pay',
  naver_pay: 'Naver Pay',
  paypay: 'PayPay',
  masterpass: 'Masterpass',
  visa_checkout: 'Visa Checkout',
  amex_express_checkout: 'Amex Express Checkout',
};

/** Direct debits from a bank account other than SEPA's, each named by its last digits alone. */
const BANK_ACCOUNTS = new Set(['us_bank_account', 'bacs_debit', 'au_becs_debit', 'acss_debit', 'nz_bank_account']);

/** A method type's or wallet's name for people: "paypal" -> "PayPal"; an unknown id is capitalised. */
export const methodName = (id: string): string => METHOD_NAMES[id.trim().toLowerCase()] ?? brandName(id);

/**
 * What a buyer paid with, as every page, e-mail and document shows it. `type` is the processor's
 * method type ("card" when absent), `wallet` the wallet a card was used through (Apple Pay, Google Pay).
 */
export interface MethodShown {
  brand: string;
  last4: string;
  type?: string | null | undefined;
  wallet?: string | null | undefined;
  expMonth?: number | undefined;
  expYear?: number | undefined;
}

/**
 * "Visa ending in 4242" in the reader's language, "Visa ending in 4242 (Apple Pay)", "SEPA Direct Debit
 * ending in 3000", "PayPal": the one place a payment method is put into words.
 */
export function paymentMethodLabel(tr: Translator, method: MethodShown): string {
  const type = method.type || 'card';
  if (type === 'card') {
    const card = tr.t('common.cardEnding', { brand: brandName(method.brand), last4: method.last4 });
    return method.wallet ? tr.t('common.throughWallet', { method: card, wallet: methodName(method.wallet) }) : card;
  }
  if (method.last4 && type === 'sepa_debit') return tr.t('common.sepaDebitEnding', { last4: method.last4 });
  if (method.last4 && BANK_ACCOUNTS.has(type)) return tr.t('common.bankAccountEnding', { last4: method.last4 });
  return methodName(type);
}

/** "expires 12/2030" in the reader's language, or undefined for a method without an expiry (a bank account, PayPal). */
export function paymentMethodExpiry(tr: Translator, method: MethodShown): string | undefined {
  if ((method.type || 'card') !== 'card' || !method.expMonth || !method.expYear) return undefined;
  return tr.t('common.cardExpires', { expiry: `${String(method.expMonth).padStart(2, '0')}/${method.expYear}` });
}
