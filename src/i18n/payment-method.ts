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

/**
 * What a buyer paid with, as every page, e-mail and document shows it. `type` is the processor's
 * method type ("card" when absent), `wallet` the wallet a card was used through (Apple Pay, Google Pay).
 */
export interface MethodShown {
  brand: string;
  last4: string;
  type?: string | null | undefined;
  wallet?: string | null | undefined;
}

/** "Visa ending in 4242" in the reader's language: the one place a payment method is put into words. */
export function paymentMethodLabel(tr: Translator, method: MethodShown): string {
  return tr.t('common.cardEnding', { brand: brandName(method.brand), last4: method.last4 });
}
