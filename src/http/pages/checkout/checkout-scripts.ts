import type { Offer } from '../../../domain/catalog/index.ts';

// What the checkout's processor script is set up with; the scripts themselves are browser sources in src/http/pages/browser.

/** Whether the offer charges nothing now: a trial, or a switch from another subscription. */
const inTrialOrSwitch = (offer: Offer) =>
  !!offer.customized?.transactionIdToMigrate || (offer.product.type === 'SUBSCRIPTION' && offer.product.trialDays > 0);

/** What the card element does: nothing due now (a trial, a free start, a switch, a vaulted method at zero) only saves the card. */
export function elementMode(needsCard: boolean, totalMinor: number, offer: Offer): 'payment' | 'setup' | 'none' {
  if (!needsCard) return 'none';
  return totalMinor > 0 && !inTrialOrSwitch(offer) ? 'payment' : 'setup';
}
