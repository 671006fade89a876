import { sql, type Selectable } from 'kysely';
import type { CoverFilter, PayoutStatement, VendorBalance } from '../domain/books/index.ts';
import type { Environment } from '../domain/model.ts';
import type { PayoutRepository } from '../domain/ports.ts';
import { isUniqueViolation, type DialectName, type Executor } from './database.ts';
import { cover, coveredEntries, latestStatements, listedEntries, uncoveredBy } from './payout-coverage.ts';
import type { PayoutStatementsTable } from './schema-payouts.ts';

function toStatement(row: Selectable<PayoutStatementsTable>): PayoutStatement {
  const n = (value: unknown) => Number(value);
  return {
    id: row.id,
    vendorId: row.vendor_id,
    environment: row.environment as Environment,
    currency: row.currency,
    number: n(row.number),
    seq: n(row.seq),
    until: row.until,
    heldFrom: row.held_from,
    createdAt: row.created_at,
    entryCount: n(row.entry_count),
    totals: {
      grossMinor: n(row.gross_minor),
      taxMinor: n(row.tax_minor),
      refundsMinor: n(row.refunds_minor),
      chargebacksMinor: n(row.chargebacks_minor),
      processorFeesMinor: n(row.processor_fees_minor),
      platformFeesMinor: n(row.platform_fees_minor),
      incomeMinor: n(row.income_minor),
      roundingMinor: n(row.rounding_minor),
    },
    carriedInMinor: n(row.carried_in_minor),
    payableMinor: n(row.payable_minor),
    carriedOutMinor: n(row.carried_out_minor),
    paid: row.paid_at ? { at: row.paid_at, reference: row.paid_reference ?? '' } : null,
  };
}

const sums = (s: PayoutStatement) => ({
  entry_count: s.entryCount,
  gross_minor: s.totals.grossMinor,
  tax_minor: s.totals.taxMinor,
  refunds_minor: s.totals.refundsMinor,
  chargebacks_minor: s.totals.chargebacksMinor,
  processor_fees_minor: s.totals.processorFeesMinor,
  platform_fees_minor: s.totals.platformFeesMinor,
  rounding_minor: s.totals.roundingMinor,
  income_minor: s.totals.incomeMinor,
  carried_in_minor: s.carriedInMinor,
  payable_minor: s.payableMinor,
  carried_out_minor: s.carriedOutMinor,
});

/** Payout statements and balances over the ledger (src/domain/books). */
export function payoutsStore(db: Executor, dialect: DialectName): PayoutRepository {
  return { ...statementWrites(db, dialect), ...statementReads(db) };
}

const selectStatements = (db: Executor, vendorId: string, environment: Environment) =>
  db
    .selectFrom('payout_statements')
    .selectAll()
    .where('vendor_id', '=', vendorId)
    .where('environment', '=', environment);

/** Making a statement (in the database transaction that makes it), and recording its payment. */
function statementWrites(db: Executor, dialect: DialectName) {
  return {
    async last(vendorId: string, environment: Environment, currency: string) {
      const row = await selectStatements(db, vendorId, environment)
        .where('currency', '=', currency)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toStatement(row);
    },
    async currencies(vendorId: string, environment: Environment) {
      const rows = await db
        .selectFrom('ledger_entries')
        .select('income_currency')
        .distinct()
        .where('vendor_id', '=', vendorId)
        .where('environment', '=', environment)
        .orderBy('income_currency')
        .execute();
      return rows.map((r) => r.income_currency);
    },
    async lastNumber(vendorId: string, environment: Environment) {
      const row = await db
        .selectFrom('payout_statements')
        .select(sql<number>`coalesce(max(number), 0)`.as('n'))
        .where('vendor_id', '=', vendorId)
        .where('environment', '=', environment)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async insert(s: PayoutStatement) {
      const values = {
        ...{ id: s.id, vendor_id: s.vendorId, environment: s.environment, currency: s.currency },
        ...{ number: s.number, seq: s.seq, until: s.until, held_from: s.heldFrom, created_at: s.createdAt },
        ...sums(s),
        ...{ paid_at: null, paid_reference: null },
      };
      try {
        await db.insertInto('payout_statements').values(values).execute();
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    cover: (statementId: string, filter: CoverFilter) => cover(db, dialect, statementId, filter),
    async complete(s: PayoutStatement) {
      await db.updateTable('payout_statements').set(sums(s)).where('id', '=', s.id).execute();
    },
    async discard(statementId: string) {
      await db.deleteFrom('payout_statements').where('id', '=', statementId).execute();
    },
    async markPaid(statementId: string, at: string, reference: string) {
      const result = await db
        .updateTable('payout_statements')
        .set({ paid_at: at, paid_reference: reference })
        .where('id', '=', statementId)
        .where('paid_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** Reading statements, their entries and the balances. */
function statementReads(db: Executor) {
  return {
    async find(id: string) {
      const row = await db.selectFrom('payout_statements').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toStatement(row);
    },
    async list(vendorId: string, environment: Environment) {
      return (await selectStatements(db, vendorId, environment).orderBy('number', 'desc').execute()).map(toStatement);
    },
    async entries(statementId: string) {
      const row = await db.selectFrom('payout_statements').selectAll().where('id', '=', statementId).executeTakeFirst();
      if (!row) return [];
      if (row.covers_to === null) return listedEntries(db, statementId);
      const s = toStatement(row);
      return coveredEntries(db, { ...s, coversTo: Number(row.covers_to), heldFrom: s.heldFrom });
    },
    balances: (vendorId: string, environment: Environment, heldFrom: string) =>
      balances(db, vendorId, environment, heldFrom),
  };
}

async function balances(
  db: Executor,
  vendorId: string,
  environment: Environment,
  heldFrom: string,
): Promise<VendorBalance[]> {
  const latest = await latestStatements(db, vendorId, environment);
  const open = await db
    .selectFrom('ledger_entries')
    .select([
      'income_currency as currency',
      sql<number>`sum(income_minor)`.as('open'),
      sql<number>`coalesce(sum(case when income_minor > 0 and created_at >= ${heldFrom} then income_minor else 0 end), 0)`.as(
        'held',
      ),
    ])
    .where('vendor_id', '=', vendorId)
    .where('environment', '=', environment)
    .where(uncoveredBy(latest))
    .groupBy('income_currency')
    .execute();
  const byCurrency = new Map<string, VendorBalance>();
  const of = (currency: string) => {
    let b = byCurrency.get(currency);
    if (!b) byCurrency.set(currency, (b = { currency, balanceMinor: 0, heldMinor: 0, carriedMinor: 0 }));
    return b;
  };
  for (const row of open) {
    const b = of(row.currency);
    b.balanceMinor += Number(row.open);
    b.heldMinor += Number(row.held);
  }
  for (const row of latest.filter((r) => Number(r.carried_out_minor) < 0)) {
    const b = of(row.currency);
    b.carriedMinor = Number(row.carried_out_minor);
    b.balanceMinor += b.carriedMinor;
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
