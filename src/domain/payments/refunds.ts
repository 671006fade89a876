import { askForRefund, retryRefund, type RefundAsking, type RefundOutcome } from './asking-for-a-refund.ts';
import { refundBooking } from './booking-a-refund.ts';
import type { ChargeProtocol } from './charge-protocol.ts';
import { latestUnderKey, wasVoided } from './charge-attempts.ts';
import type { Clock } from '../clock.ts';
import { randomToken } from '../ids.ts';
import type { Scope } from '../model.ts';
import type { RefundAsked } from './planning-a-refund.ts';
import type { Store } from '../ports.ts';
import { recordRefund } from './recording-a-refund.ts';
import type { ReversalService } from './reversals.ts';
import type { SeenLedger } from './seen-ledger.ts';

// The refund module's parts, where callers have always found them.
export type { RefundOutcome } from './asking-for-a-refund.ts';
export { MAX_REASON_LENGTH, planRefund, refundableNow, type RefundAsked } from './planning-a-refund.ts';

/**
 * Refunds asked through opentill (the API, the panel, the admin tool), all or part of a payment,
 * through the charge protocol: the refund is recorded under the row lock and committed, the gateway is
 * asked outside any database transaction, and the reversal module books it when the gateway answers.
 * One open refund per transaction at a time, and the store's check of each payment's reversals, make
 * twenty simultaneous refunds of everything produce exactly one.
 */
export interface RefundDeps {
  store: Store;
  clock: Clock;
  protocol: ChargeProtocol;
  reversals: ReversalService;
}

export function refundService(deps: RefundDeps) {
  const booking = refundBooking(deps);
  const asking: RefundAsking = { store: deps.store, protocol: deps.protocol, booking };
  return {
    /** How a settled refund is written, for the reconciler. */
    booking,

    /**
     * `key`: the client's Idempotency-Key; a retry under it is the same refund. `seen`: the ledger as
     * the caller showed it; refused if it changed since (a form sent twice).
     */
    async refund(
      scope: Scope,
      id: string,
      options: { key?: string | undefined; seen?: SeenLedger | undefined; request?: RefundAsked } = {},
    ): Promise<RefundOutcome> {
      const firstKey = `refund:${scope.vendorId}:${scope.environment}:${id}:${options.key ?? randomToken(16)}`;
      // The same key again is the same refund; after a void (nothing was refunded) it is a new try.
      const latest = options.key
        ? await latestUnderKey(deps.protocol.findByKey, firstKey, wasVoided)
        : { key: firstKey };
      if (latest.attempt) return retryRefund(asking, latest.attempt);
      const recorded = await recordRefund(deps, scope, id, latest.key, options.request ?? {}, options.seen);
      if (!recorded.fresh) return retryRefund(asking, recorded.attempt);
      return askForRefund(asking, recorded.attempt);
    },
  };
}

export type RefundService = ReturnType<typeof refundService>;
