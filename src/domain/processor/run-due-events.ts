import { AppError } from '../errors.ts';
import type { StoredProcessorEvent } from '../ports.ts';
import { actOnDispute } from './dispute-event.ts';
import { NotYet } from './event-lookups.ts';
import { actOnPayment } from './payment-event.ts';
import type { Acted, ProcessorEventDeps, ProcessorEventReport } from './processor-event-model.ts';
import { actOnRefunds } from './refund-event.ts';
import { actOnRevokedMethod } from './revoked-method.ts';

/** The first retry waits this long, each next one twice as long, up to an hour. */
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3600_000;

/**
 * A reversal the ledger refuses (more than is left of the payment) is tried again this many times, about
 * six hours: the event that makes it fit (a dispute won, a refund failed) may come later than it. Then it
 * is set aside, its refusal kept for an operator.
 */
export const REFUSED_TRIES = 12;

export const retryDelayMs = (tries: number) => Math.min(FIRST_RETRY_MS * 2 ** Math.min(tries, 20), MAX_RETRY_MS);

/** An error as the event's record keeps it: short, and never an e-mail address (no payload is ever put in one). */
export function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/[^\s@]+@[^\s@]+/g, '[e-mail]').slice(0, 300) || 'failed';
}

/**
 * Acts on up to `limit` stored events whose try is due, oldest processor time first (the billing
 * worker runs it). An event that fails is tried again after 30 s, 1 min, 2 min, ... up to an hour.
 */
export async function runDueEvents(deps: ProcessorEventDeps, limit = 100): Promise<ProcessorEventReport> {
  const realNow = () => deps.clock.now();
  const report: ProcessorEventReport = { processed: 0, failed: 0, ignored: 0, refused: 0 };
  for (const stored of await deps.store.processorEvents.listDue(realNow().toISOString(), limit)) {
    try {
      const result = await act(deps, stored);
      await deps.store.processorEvents.markProcessed(stored.id, realNow().toISOString());
      report[result]++;
    } catch (err) {
      const refused = err instanceof AppError && err.code === 'INVALID_STATE';
      if (refused && stored.tries + 1 >= REFUSED_TRIES) {
        await deps.store.processorEvents.markProcessed(stored.id, realNow().toISOString(), shortError(err));
      } else {
        const next = new Date(realNow().getTime() + retryDelayMs(stored.tries));
        await deps.store.processorEvents.markFailed(stored.id, shortError(err), next.toISOString());
      }
      report[refused ? 'refused' : 'failed']++;
    }
  }
  return report;
}

/** One stored event read by its environment's gateway and acted on by its kind. */
async function act(deps: ProcessorEventDeps, stored: StoredProcessorEvent): Promise<Acted> {
  const gateway = deps.gateways[stored.environment];
  if (!gateway.translateEvent || gateway.provider.toLowerCase() !== stored.provider.toLowerCase()) {
    throw new NotYet(`the ${stored.environment} payment processor does not read ${stored.provider} events`);
  }
  const event = await gateway.translateEvent({
    id: stored.eventId,
    type: stored.type,
    createdAt: stored.createdAt,
    payload: stored.payload,
  });
  switch (event.kind) {
    case 'payment':
      return actOnPayment(deps, stored.environment, event);
    case 'refunds':
      return actOnRefunds(deps, stored.environment, event);
    case 'dispute':
      return actOnDispute(deps, stored.environment, event);
    case 'method-revoked':
      return actOnRevokedMethod(deps, stored.environment, event);
    case 'ignored':
      return 'ignored';
  }
}
