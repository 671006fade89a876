import type { Command } from 'commander';
import type { ReconciliationReport } from '../../domain/books/index.ts';
import type { Environment } from '../../domain/model.ts';
import { formatMinor } from '../../domain/money/index.ts';
import { environment } from '../option-parsers.ts';
import { fail, io, print, run } from '../output.ts';
import { table } from '../table.ts';
import { withServices } from '../with-services.ts';

interface ReconcileOptions {
  from: string;
  to: string;
  env: Environment;
  json?: boolean;
}

const amount = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;
const instant = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** The keys `opentill` reads for Stripe in an environment, to name in the error when they are not set. */
const KEYS: Record<Environment, string> = {
  production: 'STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY',
  sandbox: 'STRIPE_SANDBOX_SECRET_KEY and STRIPE_SANDBOX_PUBLISHABLE_KEY',
};

/** Each list of the report as a titled table, or nothing when it is empty. */
function sections(report: ReconciliationReport): string[] {
  const out: string[] = [];
  const section = (title: string, header: string[], rows: string[][]) => {
    if (rows.length > 0) out.push(`${title} (${rows.length}):\n${table(header, rows)}`);
  };
  section(
    'In Stripe, not in the ledger',
    ['KIND', 'REFERENCE', 'STRIPE ID', 'MADE', 'AMOUNT'],
    report.missingInLedger.map((i) => [
      i.kind,
      i.reference,
      i.id,
      instant(i.createdAt),
      amount(i.amountMinor, i.currency),
    ]),
  );
  section(
    'In the ledger, not in Stripe',
    ['TYPE', 'REFERENCE', 'ENTRY', 'TRANSACTION', 'BOOKED', 'AMOUNT'],
    report.missingAtProcessor.map((e) => [
      e.type,
      e.reference,
      e.entryId,
      e.transactionId,
      instant(e.createdAt),
      amount(e.amountMinor, e.currency),
    ]),
  );
  section(
    'Amounts that differ',
    ['KIND', 'REFERENCE', 'WHAT', 'STRIPE', 'LEDGER', 'ENTRY'],
    report.amountsDiffer.map((d) => [
      d.kind,
      d.reference,
      d.field,
      amount(d.processor.amountMinor, d.processor.currency),
      amount(d.ledger.amountMinor, d.ledger.currency),
      d.entryId,
    ]),
  );
  section(
    'Payouts',
    ['PAYOUT', 'MADE', 'ARRIVES', 'STATUS', 'AMOUNT', 'ITEMS', 'ITEMS NET', 'DIFFERENCE'],
    report.payouts.map((p) => [
      p.id,
      instant(p.createdAt),
      p.arrivalDate,
      p.status,
      amount(p.amountMinor, p.currency),
      p.paidOut ? String(p.paidOut.count) : '-',
      p.paidOut ? amount(p.paidOut.netMinor, p.currency) : 'not listed by Stripe',
      p.differenceMinor === null ? '-' : amount(p.differenceMinor, p.currency),
    ]),
  );
  section(
    'Other Stripe items (the ledger keeps no entry of these)',
    ['WHAT', 'SOURCE', 'STRIPE ID', 'MADE', 'AMOUNT'],
    report.otherItems.map((i) => [i.label, i.reference, i.id, instant(i.createdAt), amount(i.amountMinor, i.currency)]),
  );
  return out;
}

/** The report for people: the differences as tables, then what the books agree on. */
export function reportText(report: ReconciliationReport): string {
  const { period } = report;
  const fees = report.unbookedFees.map(
    (f) => `${amount(f.feeMinor, f.currency)} (${f.items} ${f.items === 1 ? 'item' : 'items'})`,
  );
  return [
    `Stripe and the ledger, ${report.environment}, ${period.from} to ${period.to} (UTC, by the time Stripe made each item)`,
    ...sections(report),
    ...(fees.length > 0 ? [`Stripe's dispute fees, which the ledger keeps no entry of: ${fees.join(', ')}`] : []),
    `Matched: ${report.matched}. ${
      report.differences === 0
        ? 'Everything matches.'
        : `${report.differences} ${report.differences === 1 ? 'difference' : 'differences'}.`
    }`,
  ].join('\n\n');
}

/**
 * `opentill reconcile stripe --from D --to D [--env sandbox] [--json]` (docs/decisions.md §25): Stripe's
 * balance transactions and payouts of the days matched with the ledger; exit 1 on any difference.
 */
export function registerReconcileCommands(program: Command) {
  const reconcile = program
    .command('reconcile')
    .description("the ledger against the payment processor's own records of a period");
  reconcile
    .command('stripe')
    .description(
      "match Stripe's balance transactions (charges, refunds, disputes, their fees) and payouts of the days with the ledger by Stripe's ids: what is in Stripe but not in the ledger, in the ledger but not in Stripe, and amounts that differ; exit 1 on any difference",
    )
    .requiredOption('--from <date>', 'the first day, YYYY-MM-DD (UTC)')
    .requiredOption('--to <date>', 'the last day, YYYY-MM-DD (UTC), included')
    .option(
      '--env <environment>',
      "production, or sandbox (Stripe's test mode)",
      environment,
      'production' as Environment,
    )
    .option('--json', 'print JSON')
    .action((opts: ReconcileOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          if (!services.config.stripe[opts.env])
            fail(
              `Stripe is not configured for ${opts.env}: set ${KEYS[opts.env]} (README, Taking real payments).`,
              !!opts.json,
            );
          const report = await services.reconciliation.reconcile({
            provider: 'STRIPE',
            environment: opts.env,
            from: opts.from,
            to: opts.to,
          });
          print(!!opts.json, report, () => reportText(report));
          if (report.differences > 0) io().exitCode = 1;
        }),
      ),
    );
}
