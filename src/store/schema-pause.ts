import type { Generated } from 'kysely';

/** A subscription's pause and the period its anchor starts (migration 0036, docs/decisions.md §41). */
export interface TransactionPauseColumns {
  /** The period that starts at `billing_anchor`: periods are counted from it. */
  billing_anchor_period: Generated<number>;
  /** The latest pause: when it takes effect and when it ends (null: until resumed by hand). */
  pause_starts_at: string | null;
  pause_resumes_at: string | null;
  /** The anchor the pause replaced, put back when the pause is called off before it took effect. */
  pause_prior_anchor: string | null;
  pause_prior_anchor_period: number | null;
}
