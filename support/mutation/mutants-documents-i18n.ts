import type { Mutant } from './mutant.ts';

/** Mutants of e-mails, invoices and credit notes in the buyer's language (issue 36). */
export const documentLanguageMutants: Mutant[] = [];
