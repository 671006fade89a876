import type { ProcessorEvent } from '../payments/index.ts';
import type { Environment } from '../model.ts';
import type { ChargeAttempt } from '../ports.ts';
import { attemptOf, isOpen, lockOf, NotYet, paymentIn } from './event-lookups.ts';
import type { Acted, ProcessorEventDeps } from './processor-event-model.ts';

/** The event's refunds, each booked (or its booking undone) once by its id. */
export async function actOnRefunds(
  deps: ProcessorEventDeps,
  environment: Environment,
  event: Extract<ProcessorEvent, { kind: 'refunds' }>,
): Promise<Acted> {
  let acted = false;
  // Failed ones first: a refund that failed gives back room a newer one in the same list may need.
  for (const refund of [...event.refunds].sort((a, b) => Number(b.failed) - Number(a.failed))) {
    if (refund.refundAttemptId !== null) {
      const own = await attemptOf(deps, environment, refund.refundAttemptId);
      if (own?.kind === 'REFUND') {
        acted = true;
        if (isOpen(own)) {
          // opentill's own refund, whose answer the API call may still be waiting for: settled once, whoever is first.
          const outcome = refund.failed
            ? ({
                status: 'DECLINED',
                code: 'refund_refused',
                message: 'The payment provider could not make the refund.',
                permanent: true,
              } as const)
            : ({ status: 'SUCCEEDED', reference: refund.reference, feeMinor: 0 } as const);
          const settled = await deps.protocol.settle(own, outcome, deps.bookings.REFUND);
          if (isOpen(settled)) throw new NotYet(`refund ${own.id} was made but could not be booked yet`);
          continue;
        }
        if (own.status === 'SUCCEEDED' && !refund.failed) continue;
        // Settled as failed here, yet the processor made it (the money moved: booked as a refund made
        // there); or booked, and it failed since (the booking undone): both the processor's doing.
      }
    }
    const paid = await attemptOf(deps, environment, event.attemptId);
    if (paid?.transactionId == null) continue;
    acted = true;
    await refundAtProcessor(deps, { ...paid, transactionId: paid.transactionId }, event.paymentReference, refund);
  }
  return acted ? 'processed' : 'ignored';
}

/**
 * A refund of a payment opentill did not ask for (the processor's dashboard, another integration),
 * all or part of it, booked once by its id through the reversal module, as a refund through the API
 * is; or, when it failed after it was booked, its booking undone.
 */
async function refundAtProcessor(
  deps: ProcessorEventDeps,
  paid: ChargeAttempt & { transactionId: string },
  paymentReference: string,
  refund: { reference: string; amountMinor: number; currency: string; failed: boolean },
) {
  await deps.store.transaction(async (repos) => {
    // The row first, then the invoice counter (inside the entry insert): the order billing and refunds use.
    const transaction = await lockOf(repos, paid);
    const booked = await repos.entries.findByExternalId(transaction.id, refund.reference);
    const at = deps.clock.now(paid.scope);
    if (refund.failed) {
      // Failed before it was booked: it took nothing back. Failed after: the money is the vendor's again.
      if (booked)
        await deps.reversals.undo(repos, {
          scope: paid.scope,
          transaction,
          reversal: booked,
          externalId: `${refund.reference}:failed`,
          at,
        });
      return;
    }
    if (booked) return;
    // A refund through the API may be this very refund: once it is settled, this one finds it.
    if (await repos.chargeAttempts.findOpenFor(transaction.id, 'REFUND'))
      throw new NotYet(`a refund of ${transaction.id} is being confirmed`);
    const payment = await paymentIn(repos, transaction.id, paymentReference);
    if (refund.currency.toUpperCase() !== payment.currency.toUpperCase()) {
      throw new Error(`refund ${refund.reference} is in ${refund.currency}, its payment in ${payment.currency}`);
    }
    if (refund.amountMinor <= 0) return;
    await deps.reversals.reverse(repos, {
      scope: paid.scope,
      transaction,
      payment,
      kind: 'REFUND',
      amountMinor: refund.amountMinor,
      externalId: refund.reference,
      at,
    });
  });
}
