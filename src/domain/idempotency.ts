import type { Clock } from './clock.ts';
import { AppError } from './errors.ts';
import type { Scope } from './model.ts';
import type { Repositories } from './ports.ts';

/**
 * One idempotency mechanism for the API's `Idempotency-Key` and the checkout form's one-time token
 * (docs/decisions.md, idempotency): a key is claimed before the work starts; the same key with the
 * same request later replays the first outcome; with another request it is a conflict; while the
 * first is still running, a duplicate is told to retry. A failure on our side releases the key.
 */

export type Claim = { status: 'claimed' } | { status: 'done'; statusCode: number; body: string };

/** Idempotency keys are kept at least 24 hours (docs/decisions.md); older ones are purged. */
export const KEEP_KEYS_MS = 25 * 3600_000;

export interface IdempotencyDeps {
  store: Pick<Repositories, 'idempotency'>;
  clock: Clock;
  /**
   * A key held "in progress" longer than this belongs to a request whose process died: the same
   * request sent again takes it over and runs (docs/decisions.md §5). Longer than any request runs.
   */
  staleAfterMs?: number;
}

export const STALE_CLAIM_MS = 120_000;

export function idempotencyService(deps: IdempotencyDeps) {
  return {
    /** Claims `key` for a request with this fingerprint, or says how it ended the first time. */
    async claim(scope: Scope, key: string, requestHash: string): Promise<Claim> {
      const earlier = await deps.store.idempotency.claim(scope, key, requestHash, deps.clock.now().toISOString());
      if (!earlier) return { status: 'claimed' };
      if (earlier.requestHash !== requestHash) {
        throw new AppError(
          'IDEMPOTENCY_CONFLICT',
          'This Idempotency-Key was used for a different request; use a new key for a new request.',
        );
      }
      if (earlier.state === 'IN_PROGRESS') {
        // Money is safe to run again: charges and refunds are keyed by their own attempt (src/domain/payments/charge-protocol.ts).
        const now = deps.clock.now();
        const stale = now.getTime() - Date.parse(earlier.claimedAt) >= (deps.staleAfterMs ?? STALE_CLAIM_MS);
        if (
          stale &&
          (await deps.store.idempotency.takeOver(scope, key, requestHash, earlier.claimedAt, now.toISOString()))
        )
          return { status: 'claimed' };
        throw new AppError(
          'REQUEST_IN_PROGRESS',
          'A request with this Idempotency-Key is still being processed; retry shortly.',
          { retryAfterSeconds: 1 },
        );
      }
      return { status: 'done', statusCode: earlier.statusCode ?? 200, body: earlier.body ?? '' };
    },

    complete: (scope: Scope, key: string, statusCode: number, body: string) =>
      deps.store.idempotency.complete(scope, key, statusCode, body),

    /** Frees the key: the request changed nothing, so the client may send it again. */
    release: (scope: Scope, key: string) => deps.store.idempotency.release(scope, key),

    purgeExpired: () =>
      deps.store.idempotency.purgeOlderThan(new Date(deps.clock.now().getTime() - KEEP_KEYS_MS).toISOString()),
  };
}

export type IdempotencyService = ReturnType<typeof idempotencyService>;
