import type { Clock } from '../clock.ts';
import { settledAs, type Booking, type Outcome } from './attempt-outcomes.ts';
import type { AnyAttempt, AttemptKind, AttemptOf, Store } from '../ports.ts';

/** What settling needs: the store it writes in, the time it writes, and who hears of a booking that failed. */
export interface SettlingDeps {
  store: Store;
  clock: Clock;
  /** Told when money moved but its booking failed (the reconciler will book it): for the operator's log. */
  onBookingFailure?: (err: unknown, attempt: AnyAttempt) => void;
}

/**
 * Writes an outcome exactly once. UNKNOWN leaves the attempt open. Returns the attempt as it ends
 * up, and whether this call was the one that settled it.
 */
export async function settleAttempt<K extends AttemptKind>(
  deps: SettlingDeps,
  attempt: AttemptOf<K>,
  outcome: Outcome | { status: 'VOIDED' | 'UNRESOLVED' },
  booking: Booking<K>,
): Promise<AttemptOf<K>> {
  const when = deps.clock.now();
  const write = () =>
    deps.store.transaction(async (repos) => {
      const won = await repos.chargeAttempts.settle(attempt.id, settledAs(outcome, attempt, when.toISOString()));
      if (!won) return;
      if (outcome.status === 'SUCCEEDED') await booking.succeeded(repos, attempt, outcome, when);
      else if (outcome.status === 'DECLINED') await booking.declined?.(repos, attempt, outcome, when);
      else if (outcome.status === 'VOIDED') await booking.voided?.(repos, attempt, when);
    });
  const moved = outcome.status === 'SUCCEEDED' && attempt.amountMinor > 0;
  // Writing down money that moved is tried again at once (a deadlock or a busy database passes);
  // the conditional update makes a repeat harmless.
  for (let tries = 1; ; tries++) {
    try {
      await write();
      break;
    } catch (err) {
      if (!moved) throw err;
      if (tries < 3) continue;
      // Still failing: the attempt stays open and the reconciler books it later. The caller says
      // "being confirmed", which is true; nothing is charged again.
      deps.onBookingFailure?.(err, attempt);
      return attempt;
    }
  }
  // The same key is the same attempt, of the same kind.
  return ((await deps.store.chargeAttempts.findByKey(attempt.key)) as AttemptOf<K> | undefined) ?? attempt;
}
