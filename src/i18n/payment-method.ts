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

/** "Visa ending in 4242" in the reader's language. */
export function cardLabel(tr: Translator, card: { brand: string; last4: string }): string {
  return tr.t('common.cardEnding', { brand: brandName(card.brand), last4: card.last4 });
}
