import { isoString } from '../clock.ts';
import { newId } from '../ids.ts';
import type { Scope } from '../model.ts';
import type { AttemptPlans } from './attempt-plans.ts';
import type { AttemptKind, AttemptOf, ChargeAttempt } from '../ports.ts';

/**
 * A charge attempt as it is recorded before the gateway is called: PENDING until the gateway's
 * answer settles it, so a crash in between leaves a record to reconcile instead of a lost or
 * doubled charge. `key` is the attempt's identity: the same key is the same charge.
 */
export function pendingAttempt<K extends AttemptKind>(input: {
  scope: Scope;
  kind: K;
  key: string;
  /** What booking a success writes, for the reconciler. */
  plan: AttemptPlans[K];
  transactionId: string | null;
  amountMinor: number;
  currency: string;
  now: Date;
}): AttemptOf<K> {
  const at = isoString(input.now);
  return {
    id: newId('chargeAttempt', input.now.getTime()),
    scope: input.scope,
    kind: input.kind,
    key: input.key,
    plan: input.plan,
    transactionId: input.transactionId,
    amountMinor: input.amountMinor,
    currency: input.currency,
    status: 'PENDING',
    gatewayReference: null,
    failureCode: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The attempt a client's key leads to now: the first one recorded under it or, once one ended
 * without moving money in a way the client may try again (`passes`), the one made after it under
 * `<key>:after:<its id>`, and so on. `attempt` is undefined when that next one is still to be made,
 * under `key`; `passed` is the last attempt passed over.
 */
export async function latestUnderKey(
  find: (key: string) => Promise<ChargeAttempt | undefined>,
  firstKey: string,
  passes: (attempt: ChargeAttempt) => boolean,
): Promise<{ key: string; attempt?: ChargeAttempt; passed?: ChargeAttempt }> {
  let key = firstKey;
  let passed: ChargeAttempt | undefined;
  for (;;) {
    const attempt = await find(key);
    if (!attempt) return { key, passed };
    if (!passes(attempt)) return { key, attempt };
    passed = attempt;
    key = `${firstKey}:after:${attempt.id}`;
  }
}

/**
 * Voided: the gateway never had the attempt (the request was lost on the way, or its process died
 * before asking) and the reconciler closed it, so nothing moved. The same key again is a new try.
 */
export const wasVoided = (attempt: ChargeAttempt) => attempt.status === 'VOIDED';
