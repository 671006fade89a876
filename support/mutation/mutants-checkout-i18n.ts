import type { Mutant } from './mutant.ts';

/** Mutants of the checkout, receipt and client script in the buyer's language (issue 36). */
export const checkoutLanguageMutants: Mutant[] = [];
