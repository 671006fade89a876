import { pauseStateOf, type PauseState } from '../billing/index.ts';
import type { Scope, Transaction } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';

/** What the management page says and offers about a subscription's pause (docs/decisions.md §41). */
export interface PauseOffer {
  state: PauseState;
  /** When the pause takes (or took) effect, and when it ends (null: when the customer resumes). */
  startsAt: string | null;
  resumesAt: string | null;
  /** The vendor lets customers pause, and this subscription can be paused now. */
  canPause: boolean;
}

/** A subscription's pause as the customer sees it at the vendor's time; null for anything else. */
export async function pauseOffer(
  deps: Pick<PortalDeps, 'store' | 'clock'>,
  scope: Scope,
  t: Transaction,
): Promise<PauseOffer | null> {
  if (t.type !== 'SUBSCRIPTION') return null;
  const now = deps.clock.now(scope);
  const state = pauseStateOf(t, now);
  const pausable =
    state === 'none' &&
    t.status === 'SUBSCRIPTION_STATUS_ACTIVE' &&
    (t.billing?.failedAttempts ?? 0) === 0 &&
    // A renewal due now is charged first (pause-rules.ts refuses it until then).
    t.nextCharge !== null &&
    Date.parse(t.nextCharge) > now.getTime();
  return {
    state,
    startsAt: state === 'none' ? t.nextCharge : t.pause!.startsAt,
    resumesAt: state === 'none' ? null : t.pause!.resumesAt,
    canPause: pausable && (await deps.store.pauses.customerPause(scope.vendorId)),
  };
}
