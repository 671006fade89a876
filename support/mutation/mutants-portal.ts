import type { Mutant } from './mutant.ts';

/** Mutants of the customer portal (sign-in by e-mail, billing details, plan switch, cancel with reason) (issue 36). */
export const portalMutants: Mutant[] = [];
