import type { ProcessorEvent } from '../payments/index.ts';
import type { Environment } from '../model.ts';
import { attemptOf, lockOf, paymentIn } from './event-lookups.ts';
import type { Acted, ProcessorEventDeps } from './processor-event-model.ts';

/**
 * A dispute: the processor took (part of) the payment's money back, a CHARGEBACK entry booked once by
 * the dispute's id through the reversal module, whatever state the dispute is in now (its events may
 * come in any order); a dispute the vendor won gives it back, once.
 */
export async function actOnDispute(
  deps: ProcessorEventDeps,
  environment: Environment,
  event: Extract<ProcessorEvent, { kind: 'dispute' }>,
): Promise<Acted> {
  const paid = await attemptOf(deps, environment, event.attemptId);
  if (paid?.transactionId == null) return 'ignored';
  const attempt = { ...paid, transactionId: paid.transactionId };
  await deps.store.transaction(async (repos) => {
    const transaction = await lockOf(repos, attempt);
    const at = deps.clock.now(paid.scope);
    let chargeback = await repos.entries.findByExternalId(transaction.id, event.disputeReference);
    if (!chargeback) {
      if (event.amountMinor <= 0) return;
      const payment = await paymentIn(repos, transaction.id, event.paymentReference);
      const reversal = {
        scope: paid.scope,
        transaction,
        payment,
        kind: 'CHARGEBACK',
        amountMinor: event.amountMinor,
        externalId: event.disputeReference,
        at,
        by: event.byProvider ? 'WALLET_PROVIDER' : undefined,
      } as const;
      // Won before opentill heard of it: booked with its win, so a refund made meanwhile cannot stand in its way.
      chargeback = (
        await deps.reversals.reverse(
          repos,
          reversal,
          event.outcome === 'won' ? `${event.disputeReference}:won` : undefined,
        )
      ).entry;
    }
    if (event.outcome === 'won') {
      // The vendor sees the money come back; the status stays (reversals.ts).
      await deps.reversals.undo(repos, {
        scope: paid.scope,
        transaction,
        reversal: chargeback,
        externalId: `${event.disputeReference}:won`,
        at,
      });
    }
  });
  return 'processed';
}
