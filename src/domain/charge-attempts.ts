import { newId } from './ids.ts';
import type { Scope } from './model.ts';
import type { AttemptKind, ChargeAttempt } from './ports.ts';

/**
 * A charge attempt as it is recorded before the gateway is called: PENDING until the gateway's
 * answer settles it, so a crash in between leaves a record to reconcile instead of a lost or
 * doubled charge. `key` is the attempt's identity: the same key is the same charge.
 */
export function pendingAttempt(input: {
  scope: Scope;
  kind: AttemptKind;
  key: string;
  /** What booking a success writes, for the reconciler; none for renewals. */
  plan?: unknown;
  transactionId: string | null;
  amountMinor: number;
  currency: string;
  now: Date;
}): ChargeAttempt {
  const at = input.now.toISOString();
  return {
    id: newId('chargeAttempt', input.now.getTime()),
    scope: input.scope,
    kind: input.kind,
    key: input.key,
    plan: input.plan === undefined ? null : JSON.stringify(input.plan),
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
