import type { LedgerEntry, Transaction } from '../model.ts';
import { formatMinor } from '../money/index.ts';
import type { WebhookEvent, WebhookSnapshot } from '../ports.ts';
import { EVENT_TYPES } from './webhook-model.ts';

/** The API's wire shapes of a feed record and a ledger entry (src/http/presenters.ts), handed in by the wiring. */
export interface WebhookPresenters {
  transaction(t: Transaction): Record<string, unknown>;
  entry(e: LedgerEntry): Record<string, unknown>;
}

/**
 * What a delivery's body says, the same on every try of an event (docs/decisions.md §27): the
 * Standard Webhooks envelope `{id, type, timestamp, data}`, whose data is the transaction as
 * GET /v1/changed-transactions lists it, with the change flag, the event's id and the ledger entry
 * booked with the change; a refund adds its amount and whether it was partial.
 */
export function eventBody(event: WebhookEvent, present: WebhookPresenters): string {
  const type = EVENT_TYPES[event.kind];
  if (event.kind === 'TEST')
    return JSON.stringify({
      id: event.id,
      type,
      timestamp: event.createdAt,
      data: JSON.parse(event.payload) as unknown,
    });
  const { transaction, entry } = JSON.parse(event.payload) as WebhookSnapshot;
  const data: Record<string, unknown> = {
    ...present.transaction(transaction),
    changeFlag: event.kind,
    eventId: event.id,
    ledgerEntry: entry ? present.entry(entry) : null,
  };
  if (event.kind === 'CHANGED_STATUS_REFUNDED' && entry)
    data.refund = {
      amount: formatMinor(Math.abs(entry.amountTotalMinor), entry.currency),
      currency: entry.currency,
      partial: transaction.status !== 'TRANSACTION_STATUS_REFUNDED',
    };
  return JSON.stringify({ id: event.id, type, timestamp: transaction.changedAt ?? event.createdAt, data });
}
