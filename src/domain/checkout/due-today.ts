import type { Offer } from '../catalog/index.ts';

/** What an offer asks of the buyer today, beside its quote: the one rule the checkout page and the purchase share. */
export interface DueToday {
  /** Money moves now: the purchase's attempt goes to the processor (else it is booked at once). */
  charged: boolean;
  /** Charged now, in minor units of the quote's currency: nothing in a trial or a switch. */
  chargeMinor: number;
  /** A free trial starts (a switch has none: what is left of the old subscription pays the first days). */
  trial: boolean;
  /** Nothing is charged now although the subscription has a price: a trial, or a switch. */
  paidLater: boolean;
  /** How the card is taken: charged now, kept for later charges, or not asked for (a free one-time purchase). */
  card: 'payment' | 'setup' | 'none';
}

/**
 * Today's part of an offer priced at `totalMinor` (the quote's total). `replacing`: the purchase replaces
 * a subscription without a customized link (a portal plan switch, a seat change): a switch all the same.
 */
export function dueToday(
  offer: Pick<Offer, 'product' | 'customized'>,
  totalMinor: number,
  replacing = false,
): DueToday {
  const { product } = offer;
  const switching = replacing || !!offer.customized?.transactionIdToMigrate;
  const trial = !switching && product.type === 'SUBSCRIPTION' && product.trialDays > 0;
  const charged = !switching && !trial && totalMinor > 0;
  const needsCard = product.type !== 'ONETIME' || totalMinor > 0;
  let card: DueToday['card'] = 'none';
  if (needsCard) card = charged ? 'payment' : 'setup';
  return { charged, chargeMinor: charged ? totalMinor : 0, trial, paidLater: switching || trial, card };
}
