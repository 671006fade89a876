import { invalidState } from '../errors.ts';
import type { Repositories } from '../ports.ts';

/**
 * The ledger of a transaction as a page showed it (its number of entries). A page that acts on a
 * transaction sends it back, and the action is refused if the ledger moved in between: a refund form
 * submitted twice refunds once. Checked under the row lock, in the action's own database transaction.
 */
export interface SeenLedger {
  entries: number;
}

export async function requireUnchanged(
  repos: Pick<Repositories, 'entries'>,
  transactionId: string,
  seen: SeenLedger | undefined,
): Promise<void> {
  if (seen === undefined) return;
  const entries = await repos.entries.listForTransaction(transactionId);
  if (entries.length !== seen.entries)
    throw invalidState('The transaction changed since this page was shown; check it and try again.');
}
