import type { Mutant } from './mutant.ts';

/** Mutants of the panel's transaction detail and the page fixes of issue 36 (issue 36). */
export const panelDetailMutants: Mutant[] = [];
