/**
 * `npm run bench:books`: a vendor's payout statement over a ledger of BENCH_ROWS entries (issue 34:
 * 1,000,000 entries in 5 s or less), on SQLite and on PostgreSQL. The statement covers every entry
 * (PAYOUT_HOLD_DAYS=0, until today): it records its range and adds up the entries in it, in one
 * database transaction, as `opentill payouts create` does. Beside it, in the same run and on the same rows, the
 * reference: one plain `sum(income_minor)` over the vendor's entries, the least any statement must read.
 * Prints the seconds of each and statement / reference. Then this quarter's EU OSS return over
 * the same ledger, every vendor's (issue 34: 5 s or less), and how many of the entries fell in it.
 *
 * Environment:
 *   BENCH_ROWS=1000000     ledger entries (one payment per transaction, bench/seed.ts)
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1          2,001 entries (test/bench/bench-smoke.test.ts)
 */
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { BENCH_SECRET } from './seed.ts';
import type { StoreLocation } from './servers.ts';
import { count, logMachine, setting } from './settings.ts';
import { runWriteBench } from './stores.ts';

const ROWS = setting('BENCH_ROWS', 1_000_000, 2_001);
const TARGET_SECONDS = 5;

async function measure(location: StoreLocation, vendorId: string): Promise<string[]> {
  const services = createServices(
    loadConfig({
      OPENTILL_SECRET: BENCH_SECRET,
      LOG_LEVEL: 'silent',
      PAYOUT_HOLD_DAYS: '0',
      ...('sqliteFile' in location ? { SQLITE_FILE: location.sqliteFile } : { DATABASE_URL: location.databaseUrl }),
    }),
  );
  try {
    await services.database.migrate();
    const referenceStarted = performance.now();
    const reference = await sql<{ n: number; income: number }>`
      select count(*) as n, sum(income_minor) as income from ledger_entries
      where vendor_id = ${vendorId} and environment = 'sandbox'`.execute(services.database.kysely);
    const referenceSeconds = (performance.now() - referenceStarted) / 1000;
    const started = performance.now();
    const [statement] = await services.payouts.create(vendorId, 'sandbox', new Date().toISOString().slice(0, 10));
    const seconds = (performance.now() - started) / 1000;
    const expected = Number(reference.rows[0]!.n);
    if (statement?.entryCount !== expected || statement.totals.incomeMinor !== Number(reference.rows[0]!.income))
      throw new Error(`the statement covered ${statement?.entryCount} entries, not ${expected}, or another income`);
    const statementLine =
      `statement of ${count(statement.entryCount)} entries  ${seconds.toFixed(2)} s (target <= ${TARGET_SECONDS} s: ` +
      `${seconds <= TARGET_SECONDS ? 'met' : 'MISSED'})  reference sum ${referenceSeconds.toFixed(2)} s  ` +
      `statement / reference ${(seconds / Math.max(referenceSeconds, 0.001)).toFixed(1)}`;
    return [statementLine, await taxReportLine(services, expected)];
  } finally {
    await services.close();
  }
}

/** This quarter's OSS return (the ledger's latest entries are in it) over the whole ledger, every vendor's (the operator's). */
async function taxReportLine(services: ReturnType<typeof createServices>, ledgerEntries: number): Promise<string> {
  const now = new Date();
  const quarterStart = Math.floor(now.getUTCMonth() / 3) * 3;
  const period = `${now.getUTCFullYear()}-Q${quarterStart / 3 + 1}`;
  const lastDay = new Date(Date.UTC(now.getUTCFullYear(), quarterStart + 3, 0)).toISOString().slice(0, 10);
  // The table in use, dated the quarter's last day: the bench measures the report, not the ECB's history.
  const rates = [{ ...services.rates, date: lastDay }];
  const started = performance.now();
  const { rows } = await services.taxReturns.report({ period, scheme: 'oss', environment: 'sandbox', rates });
  const seconds = (performance.now() - started) / 1000;
  const inQuarter = rows.reduce((a, r) => a + r.entries, 0);
  return (
    `OSS report of ${period} (${count(inQuarter)} of the ledger's ${count(ledgerEntries)} entries, ${rows.length} rows)  ` +
    `${seconds.toFixed(2)} s (target <= ${TARGET_SECONDS} s: ${seconds <= TARGET_SECONDS ? 'met' : 'MISSED'})`
  );
}

logMachine(`bench:books: a payout statement over ${count(ROWS)} ledger entries`);
await runWriteBench(
  'books',
  ROWS,
  `payout statements (issue 34: ${count(1_000_000)} entries in ${TARGET_SECONDS} s or less):`,
  async (kind, location, seeded) => (await measure(location, seeded.vendorId)).map((line) => `${kind} ${line}`),
);
