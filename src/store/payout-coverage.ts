import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { CoverFilter } from '../domain/books/index.ts';
import type { EntryType, Environment } from '../domain/model.ts';
import type { CoveredSums, StatementLine } from '../domain/ports.ts';
import type { DialectName, Executor } from './database.ts';
import type { Schema } from './schema.ts';

/**
 * Which ledger entries a payout statement covers (docs/decisions.md §22). A statement records the
 * highest `book_seq` booked when it was made (`covers_to`) beside its window (`until`, `held_from`); it
 * covers every entry of its vendor, environment and currency that is inside that range and was inside
 * no range before it. The window only moves forward along a chain (src/domain/books/payout-statement.ts),
 * so "inside a range before" is "inside the chain's latest range": one comparison, no row per entry.
 * Statements made before ranges (`covers_to` null) keep a row per entry in payout_statement_entries.
 */
export interface CoverRange {
  coversTo: number;
  until: string;
  heldFrom: string;
}

type Where = ExpressionBuilder<Schema, 'ledger_entries'>;

const PAYMENTS = ['SUBSCRIPTION_PAYMENT', 'VAULTED_PAYMENT', 'ONETIME_PAYMENT'];
const REFUNDS = ['SUBSCRIPTION_REFUND', 'ONETIME_PAYMENT_REFUND'];

/** Inside the range: booked by then, before its end, and a payment only once past the hold. */
const inside = (r: CoverRange) =>
  sql<SqlBool>`(ledger_entries.book_seq <= ${r.coversTo} and ledger_entries.created_at < ${r.until} and (ledger_entries.created_at < ${r.heldFrom} or ledger_entries.income_minor < 0))`;

/** Covered by a statement from before ranges (a row of its own). */
const listed = sql<SqlBool>`exists (select 1 from payout_statement_entries p where p.entry_id = ledger_entries.id)`;

/** Not covered by any statement of the chain whose latest range is `latest`. */
const notCoveredBefore = (latest: CoverRange | undefined) => (eb: Where) =>
  eb.and([eb.not(listed), ...(latest ? [eb.not(inside(latest))] : [])]);

const ofChain = (f: Pick<CoverFilter, 'vendorId' | 'environment' | 'currency'>) => (eb: Where) =>
  eb.and([
    eb('ledger_entries.vendor_id', '=', f.vendorId),
    eb('ledger_entries.environment', '=', f.environment),
    eb('ledger_entries.income_currency', '=', f.currency),
  ]);

/** What a statement covers: its chain's entries inside its range and not covered before. */
const coveredBy =
  (f: Pick<CoverFilter, 'vendorId' | 'environment' | 'currency'>, range: CoverRange, before?: CoverRange) =>
  (eb: Where) =>
    eb.and([ofChain(f)(eb), inside(range), notCoveredBefore(before)(eb)]);

/**
 * Each currency chain's latest statement of the vendor: what the balances start from (its carry, and
 * its range). Statements made by range come after every one that lists its entries (migration 0025),
 * so when the latest has no range, no statement of that chain has one.
 */
export function latestStatements(db: Executor, vendorId: string, environment: Environment) {
  return db
    .selectFrom('payout_statements as s')
    .select(['s.currency', 's.carried_out_minor', 's.covers_to', 's.until', 's.held_from'])
    .where('s.vendor_id', '=', vendorId)
    .where('s.environment', '=', environment)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payout_statements as later')
            .select('later.id')
            .whereRef('later.vendor_id', '=', 's.vendor_id')
            .whereRef('later.environment', '=', 's.environment')
            .whereRef('later.currency', '=', 's.currency')
            .whereRef('later.seq', '>', 's.seq'),
        ),
      ),
    )
    .execute();
}

/** Not covered by any statement: listed by none, and in each currency not inside its chain's latest range. */
export const uncoveredBy =
  (latest: Awaited<ReturnType<typeof latestStatements>>) =>
  (eb: Where): Expression<SqlBool> =>
    eb.and([
      eb.not(listed),
      ...latest
        .filter((r) => r.covers_to !== null)
        .map((r) =>
          eb.not(
            eb.and([
              eb('ledger_entries.income_currency', '=', r.currency),
              inside({ coversTo: Number(r.covers_to), until: r.until, heldFrom: r.held_from }),
            ]),
          ),
        ),
    ]);

/** The chain's latest range before the statement `seq` (every statement's, without `seq`). */
export async function latestRange(
  db: Executor,
  f: Pick<CoverFilter, 'vendorId' | 'environment' | 'currency'>,
  seq?: number,
): Promise<CoverRange | undefined> {
  let query = db
    .selectFrom('payout_statements')
    .select(['covers_to', 'until', 'held_from'])
    .where('vendor_id', '=', f.vendorId)
    .where('environment', '=', f.environment)
    .where('currency', '=', f.currency)
    .where('covers_to', 'is not', null);
  if (seq !== undefined) query = query.where('seq', '<', seq);
  const row = await query.orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return row && { coversTo: Number(row.covers_to), until: row.until, heldFrom: row.held_from };
}

/**
 * Covers, for the statement just inserted, what its window selects and no statement before covered:
 * records the range and adds up the entries in it. On PostgreSQL the ledger is locked against new
 * entries first (SHARE: other statements may read), so every entry numbered up to `covers_to` has
 * committed; one that commits later has a higher number and falls to the next statement. (SQLite has
 * one writer at a time: the statement's own transaction is that lock.)
 */
export async function cover(
  db: Executor,
  dialect: DialectName,
  statementId: string,
  f: CoverFilter,
): Promise<CoveredSums> {
  if (dialect === 'postgres') await sql`lock table ledger_entries in share mode`.execute(db);
  const top = await db
    .selectFrom('ledger_entries')
    .select(sql<number | string | null>`max(book_seq)`.as('top'))
    .executeTakeFirstOrThrow();
  const range = { coversTo: Number(top.top ?? 0), until: f.until, heldFrom: f.heldFrom };
  const before = await latestRange(db, f); // the statement's own range is not set yet
  await db.updateTable('payout_statements').set({ covers_to: range.coversTo }).where('id', '=', statementId).execute();
  return sumsOf(db, coveredBy(f, range, before));
}

/** The entries a statement covers, oldest first. */
export async function coveredEntries(
  db: Executor,
  s: { vendorId: string; environment: Environment; currency: string; seq: number } & CoverRange,
): Promise<StatementLine[]> {
  return linesWhere(db, coveredBy(s, s, await latestRange(db, s, s.seq)));
}

/** The entries of a statement made before ranges, each listed in payout_statement_entries. */
export const listedEntries = (db: Executor, statementId: string): Promise<StatementLine[]> =>
  linesWhere(
    db,
    () =>
      sql<SqlBool>`exists (select 1 from payout_statement_entries p where p.entry_id = ledger_entries.id and p.statement_id = ${statementId})`,
  );

async function linesWhere(db: Executor, where: (eb: Where) => Expression<SqlBool>): Promise<StatementLine[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['id', 'transaction_id', 'type', 'created_at', 'amount_total_minor', 'tax_minor'])
    .select(['transaction_fee_minor', 'service_fee_minor', 'income_minor'])
    .where(where)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    entryId: r.id,
    transactionId: r.transaction_id,
    type: r.type as EntryType,
    createdAt: r.created_at,
    amountTotalMinor: Number(r.amount_total_minor),
    taxMinor: Number(r.tax_minor),
    transactionFeeMinor: Number(r.transaction_fee_minor),
    serviceFeeMinor: Number(r.service_fee_minor),
    incomeMinor: Number(r.income_minor),
  }));
}

async function sumsOf(db: Executor, where: (eb: Where) => ReturnType<Where['and']>): Promise<CoveredSums> {
  const sumOf = (types: string[]) =>
    sql<number>`coalesce(sum(case when type in (${sql.join(types)}) then amount_total_minor else 0 end), 0)`;
  const row = await db
    .selectFrom('ledger_entries')
    .select([
      sql<number>`count(*)`.as('count'),
      sumOf(PAYMENTS).as('gross'),
      sumOf(REFUNDS).as('refunds'),
      sumOf(['CHARGEBACK']).as('chargebacks'),
      sql<number>`coalesce(sum(tax_minor), 0)`.as('tax'),
      sql<number>`coalesce(sum(transaction_fee_minor), 0)`.as('processor'),
      sql<number>`coalesce(sum(service_fee_minor), 0)`.as('platform'),
      sql<number>`coalesce(sum(income_minor), 0)`.as('income'),
    ])
    .where(where)
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    grossMinor: Number(row.gross),
    refundsMinor: Number(row.refunds),
    chargebacksMinor: Number(row.chargebacks),
    taxMinor: Number(row.tax),
    processorFeesMinor: Number(row.processor),
    platformFeesMinor: Number(row.platform),
    incomeMinor: Number(row.income),
  };
}
