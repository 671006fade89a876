import type { Mutant } from './mutant.ts';

/** Mutants of payment methods beyond cards (issue 36). */
export const paymentMethodMutants: Mutant[] = [];
