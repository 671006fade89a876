/** One hand-made mutant: `find` must occur exactly once in `file`; `tests` are the few test files that should notice it. */
export interface Mutant {
  id: string;
  file: string;
  find: string;
  replace: string;
  tests: string[];
}
