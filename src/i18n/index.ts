/*
 * The buyer's language (docs/decisions.md §32): ICU MessageFormat catalogs per surface and locale,
 * formatted with @formatjs/intl. What a buyer reads speaks their language; the panel stays English.
 */
export {
  LOCALES,
  PSEUDO_LOCALE,
  DEFAULT_LOCALE,
  textDirection,
  supportedLocale,
  acceptedTags,
  resolveLocale,
  type Locale,
} from './locales.ts';
export { translator, type Translator, type MessageValues, type TagFormatter } from './translator.ts';
export { SURFACES, readCatalog, type Catalog } from './catalogs.ts';

export { brandName, methodName, paymentMethodExpiry, paymentMethodLabel, type MethodShown } from './payment-method.ts';
