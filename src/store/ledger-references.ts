import type { EntryType } from '../domain/model.ts';
import type { EntryRepository, ReferencedEntry } from '../domain/ports.ts';
import type { Executor } from './database.ts';

/**
 * The ledger's side of a reconciliation with the processor (src/domain/books/reconciliation.ts): the
 * entries of a period that keep a processor's id, and the entries that keep given ids whenever they were
 * booked. Both repeat the condition of the partial index on `external_id`, so SQLite's planner uses it
 * for the second; the first reads the environment's period (ledger_by_environment_time).
 */

/** Ids asked for at once: well under SQLite's 32,766 bound parameters and PostgreSQL's 65,535. */
const IDS_PER_QUERY = 500;

const selectReferenced = (db: Executor) =>
  db
    .selectFrom('ledger_entries')
    .select([
      'id',
      'transaction_id',
      'vendor_id',
      'type',
      'created_at',
      'external_id',
      'currency',
      'amount_total_minor',
      'transaction_fee_minor',
    ])
    .where('external_id', 'is not', null)
    .where('external_id', '!=', '');

type Row = Awaited<ReturnType<ReturnType<typeof selectReferenced>['execute']>>[number];

const toReferenced = (row: Row): ReferencedEntry => ({
  entryId: row.id,
  transactionId: row.transaction_id,
  vendorId: row.vendor_id,
  type: row.type as EntryType,
  createdAt: row.created_at,
  reference: row.external_id!,
  currency: row.currency,
  amountMinor: Number(row.amount_total_minor),
  feeMinor: Number(row.transaction_fee_minor),
});

export function referenceReads(db: Executor): Pick<EntryRepository, 'referencedIn' | 'withReferences'> {
  return {
    async referencedIn(f) {
      const rows = await selectReferenced(db)
        .where('environment', '=', f.environment)
        .where('created_at', '>=', f.from)
        .where('created_at', '<', f.to)
        .where('payment_provider', '=', f.provider)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toReferenced);
    },
    async withReferences(f, references) {
      const out: ReferencedEntry[] = [];
      const unique = [...new Set(references)];
      for (let i = 0; i < unique.length; i += IDS_PER_QUERY) {
        const rows = await selectReferenced(db)
          .where('external_id', 'in', unique.slice(i, i + IDS_PER_QUERY))
          .where('environment', '=', f.environment)
          .where('payment_provider', '=', f.provider)
          .execute();
        out.push(...rows.map(toReferenced));
      }
      return out;
    },
  };
}
