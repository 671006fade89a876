import { sql, type Selectable } from 'kysely';
import type { EntryType, LedgerEntry } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { DialectName, Executor, ReadRows } from './database.ts';
import { whereScope } from './scope.ts';
import { precompiled, precompiledRow } from './precompiled.ts';
import { referenceReads } from './ledger-references.ts';
import { byCreatedThenId } from './row-order.ts';
import type { LedgerEntriesTable } from './schema.ts';

type NewEntry = Parameters<Repositories['entries']['insert']>[0];

export function toEntryRow(e: NewEntry, invoiceNumber: number | null): LedgerEntriesTable {
  return {
    id: e.id,
    transaction_id: e.transactionId,
    vendor_id: e.vendorId,
    environment: e.environment,
    type: e.type,
    created_at: e.createdAt,
    currency: e.currency,
    amount_total_minor: e.amountTotalMinor,
    tax_minor: e.taxMinor,
    net_minor: e.netMinor,
    tax_rate: e.taxRate,
    income_minor: e.incomeMinor,
    income_currency: e.incomeCurrency,
    affiliate_income_minor: e.affiliateIncomeMinor,
    service_fee_minor: e.serviceFeeMinor,
    transaction_fee_minor: e.transactionFeeMinor,
    reverses_entry_id: e.reversesEntryId,
    period_start: e.periodStart,
    hash_id: e.hashId,
    external_id: e.externalId,
    payment_provider: e.paymentProvider,
    country: e.country,
    description: e.description,
    invoice_number: invoiceNumber,
    discount_minor: e.discountMinor ?? 0,
  };
}

/**
 * Entries that are invoices (payments) or credit notes (refunds). A chargeback is neither, nor is the
 * entry that puts back a refund that failed (of a refund's type, positive).
 */
export const isInvoiced = (e: Pick<NewEntry, 'type' | 'amountTotalMinor'>) =>
  e.type !== 'CHARGEBACK' && !(e.type.endsWith('_REFUND') && e.amountTotalMinor > 0);

/**
 * Takes the next `count` invoice numbers of a vendor's environment and returns the first. Called in
 * the database transaction that inserts the entries, so numbers are never skipped or shared; on
 * PostgreSQL the counter row stays locked until that transaction ends.
 */
export async function reserveInvoiceNumbers(
  db: Executor,
  vendorId: string,
  environment: string,
  count: number,
): Promise<number> {
  const row = await reserveStatement(db, vendorId, environment, count).executeTakeFirstOrThrow();
  return Number(row.last_number) - count + 1;
}

/** The counter's new last number, `count` past the one before. */
const reserveStatement = (db: Executor, vendorId: string, environment: string, count: number) =>
  db
    .insertInto('invoice_counters')
    .values({ vendor_id: vendorId, environment, last_number: count })
    .onConflict((oc) =>
      oc
        .columns(['vendor_id', 'environment'])
        .doUpdateSet({ last_number: sql<number>`invoice_counters.last_number + ${count}` }),
    )
    .returning('last_number');

export function toEntry(row: Selectable<LedgerEntriesTable>): LedgerEntry {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    type: row.type as EntryType,
    createdAt: row.created_at,
    currency: row.currency,
    amountTotalMinor: Number(row.amount_total_minor),
    taxMinor: Number(row.tax_minor),
    netMinor: Number(row.net_minor),
    taxRate: row.tax_rate,
    incomeMinor: Number(row.income_minor),
    incomeCurrency: row.income_currency,
    affiliateIncomeMinor: Number(row.affiliate_income_minor),
    serviceFeeMinor: Number(row.service_fee_minor),
    transactionFeeMinor: Number(row.transaction_fee_minor),
    reversesEntryId: row.reverses_entry_id,
    periodStart: row.period_start,
    hashId: row.hash_id,
    externalId: row.external_id,
    paymentProvider: row.payment_provider,
    country: row.country,
    invoiceNumber: row.invoice_number === null ? null : Number(row.invoice_number),
    description: row.description,
    discountMinor: Number(row.discount_minor ?? 0),
  };
}

/** Ledger entries are append-only: this store can insert and read them, never change them. */
export const ENTRY_COLUMNS = Object.keys(toEntryRow({} as NewEntry, null)) as (keyof LedgerEntriesTable & string)[];

type EntryRepository = Repositories['entries'];
type Runners = { reads?: ReadRows | undefined; writes?: ReadRows | undefined };

/** The statements every booking runs, compiled once per dialect (src/store/precompiled.ts). */
function entryStatements(db: Executor, dialect: DialectName, runners: Runners) {
  const entriesOf = precompiled(
    db,
    1,
    (transactionId: string) => db.selectFrom('ledger_entries').selectAll().where('transaction_id', '=', transactionId),
    {
      runOn: runners.reads,
      shareAs: `${dialect}:entries.ofTransaction`,
    },
  );
  const insertRow = precompiledRow(
    db,
    ENTRY_COLUMNS,
    (row: LedgerEntriesTable) => db.insertInto('ledger_entries').values(row),
    {
      runOn: runners.writes,
      shareAs: `${dialect}:entries.insert`,
    },
  );
  const reserve = precompiled(
    db,
    3,
    (vendorId: string, environment: string, count: number) => reserveStatement(db, vendorId, environment, count),
    {
      runOn: runners.writes,
      shareAs: `${dialect}:entries.reserveInvoiceNumbers`,
    },
  );
  return { entriesOf, insertRow, reserve };
}

type EntryStatements = ReturnType<typeof entryStatements>;

/** Entries written, an invoice or credit note with its number; a reversal checked against its payment. */
function entryWrites(
  db: Executor,
  dialect: DialectName,
  { insertRow, reserve }: EntryStatements,
): Pick<EntryRepository, 'insert' | 'insertReversal'> {
  async function write(e: NewEntry) {
    let invoiceNumber: number | null = null;
    if (isInvoiced(e)) {
      const [row] = await reserve(e.vendorId, e.environment, 1);
      invoiceNumber = Number(row!.last_number);
    }
    await insertRow(toEntryRow(e, invoiceNumber));
  }
  return {
    async insert(e) {
      if (e.reversesEntryId !== null)
        throw new Error(`entry ${e.id} reverses ${e.reversesEntryId}: reversals go through insertReversal`);
      await write(e);
    },
    async insertReversal(...batch) {
      const first = batch[0];
      if (!first || batch.some((e) => e.reversesEntryId === null)) throw new Error('a reversal reverses an entry');
      // Under the payment row's lock: written, then summed with the payment's other reversals (and
      // theirs). A batch (a dispute and its win heard together) is checked as one: only where it ends.
      // Refused, the caller's transaction rolls the writes back.
      const payment = await paymentReversedBy(db, dialect, first.reversesEntryId!);
      for (const e of batch) await write(e);
      const { sum } = await db
        .selectFrom('ledger_entries')
        .select(sql<string>`coalesce(sum(amount_total_minor), 0)`.as('sum'))
        .where((eb) =>
          eb.or([
            eb('reverses_entry_id', '=', payment.id),
            eb(
              'reverses_entry_id',
              'in',
              eb.selectFrom('ledger_entries').select('id').where('reverses_entry_id', '=', payment.id),
            ),
          ]),
        )
        .executeTakeFirstOrThrow();
      const after = -Number(sum);
      if (after < 0 || after > Number(payment.amount_total_minor)) {
        throw new Error(
          `entry ${first.id} would reverse ${after} of payment ${payment.id}, which was ${payment.amount_total_minor}: refused`,
        );
      }
    },
  };
}

/** A transaction's entries, and an entry by its hash or by the processor's id. */
function entryReads(
  db: Executor,
  { entriesOf }: EntryStatements,
): Pick<EntryRepository, 'listForTransaction' | 'findByHash' | 'findByExternalId'> {
  return {
    async listForTransaction(transactionId) {
      const rows = await entriesOf(transactionId);
      return byCreatedThenId(rows).map(toEntry);
    },
    async findByHash(environment, hashId) {
      const row = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('hash_id', '=', hashId)
        .where('environment', '=', environment)
        .executeTakeFirst();
      return row && { ...toEntry(row), vendorId: row.vendor_id };
    },
    async findByExternalId(transactionId, externalId) {
      if (externalId === '') return undefined;
      const row = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('external_id', '=', externalId)
        // Repeats the partial index's condition, so SQLite's planner uses it too.
        .where('external_id', 'is not', null)
        .where('external_id', '!=', '')
        .where('transaction_id', '=', transactionId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && toEntry(row);
    },
  };
}

/**
 * Ledger entries are append-only: this store can insert and read them, never change them. `reads`
 * and `writes` run the compiled statements past Kysely where the store has them (see createStore).
 */
export function entriesStore(db: Executor, dialect: DialectName, runners: Runners = {}): EntryRepository {
  const statements = entryStatements(db, dialect, runners);
  return { ...entryWrites(db, dialect, statements), ...entryReads(db, statements), ...referenceReads(db) };
}

/**
 * The payment an entry reverses, directly or through the reversal it undoes, locked on PostgreSQL until
 * the database transaction ends (SQLite's writer holds the whole database), so two reversals of one
 * payment are checked one after the other.
 */
async function paymentReversedBy(db: Executor, dialect: DialectName, entryId: string) {
  const row = (id: string) => {
    const query = db
      .selectFrom('ledger_entries')
      .select(['id', 'amount_total_minor', 'reverses_entry_id'])
      .where('id', '=', id);
    return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  };
  const target = await row(entryId);
  if (!target) throw new Error(`entry ${entryId} is not in the ledger`);
  if (target.reverses_entry_id === null) return target;
  const payment = await row(target.reverses_entry_id);
  if (!payment || payment.reverses_entry_id !== null)
    throw new Error(`entry ${entryId} reverses a reversal of a reversal`);
  return payment;
}

export function licencesStore(db: Executor): Repositories['licences'] {
  return {
    async insert(l) {
      await db
        .insertInto('licences')
        .values({
          id: l.id,
          vendor_id: l.scope.vendorId,
          environment: l.scope.environment,
          product_id: l.productId,
          transaction_id: l.transactionId,
          licence_key: l.key,
          created_at: l.createdAt,
        })
        .execute();
    },
    async find(scope, productId, key) {
      const row = await db
        .selectFrom('licences')
        .select('transaction_id')
        .where('product_id', '=', productId)
        .where('licence_key', '=', key)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return row && { transactionId: row.transaction_id };
    },
    async keyOf(scope, transactionId) {
      const row = await db
        .selectFrom('licences')
        .select('licence_key')
        .where('transaction_id', '=', transactionId)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return row?.licence_key;
    },
    async carryOver(scope, fromTransactionId, toTransactionId) {
      const result = await db
        .updateTable('licences')
        .set({ transaction_id: toTransactionId })
        .where('transaction_id', '=', fromTransactionId)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
