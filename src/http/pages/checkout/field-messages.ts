import type { Translator } from '../../../i18n/index.ts';

/**
 * What each field of the checkout form needs, in the buyer's language: the same words from the server
 * and from the form's own script, which reads them from the page (its `opentill-field-messages` data
 * block) instead of bundling a catalog.
 */
export interface FieldMessages {
  email: string;
  zipCode: string;
  cardNumber: string;
  cardExpiry: string;
  cardCvc: string;
}

export const fieldMessages = (tr: Translator): FieldMessages => ({
  email: tr.t('checkout.fieldEmail'),
  zipCode: tr.t('checkout.fieldZipCode'),
  cardNumber: tr.t('checkout.fieldCardNumber'),
  cardExpiry: tr.t('checkout.fieldCardExpiry'),
  cardCvc: tr.t('checkout.fieldCardCvc'),
});
