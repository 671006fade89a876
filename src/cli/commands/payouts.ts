import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { statementCsv, type PayoutStatement } from '../../domain/books/index.ts';
import type { StatementLine } from '../../domain/ports.ts';
import type { Services } from '../../services.ts';
import type { Environment } from '../../domain/model.ts';
import { formatMinor } from '../../domain/money/index.ts';
import { environment } from '../option-parsers.ts';
import { io, print, run } from '../output.ts';
import { table } from '../table.ts';
import { requireVendor, withServices } from '../with-services.ts';

interface VendorOptions {
  vendor: string;
  env: Environment;
  json?: boolean;
}

const amount = (minor: number, currency: string) => `${formatMinor(minor, currency)} ${currency}`;

/**
 * `opentill payouts balance|create|list|show|paid` (docs/decisions.md §22): what the operator owes each
 * vendor, on numbered statements per currency, and their payment.
 */
export function registerPayoutCommands(program: Command) {
  const payouts = program
    .command('payouts')
    .description("vendors' balances and payout statements: what an operator selling for vendors owes each");
  const vendorCommand = (name: string, description: string) =>
    payouts
      .command(name)
      .description(description)
      .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
      .option('--env <environment>', 'production (real money) or sandbox', environment, 'production' as Environment)
      .option('--json', 'print JSON');

  payouts
    .command('balance')
    .description(
      "balances per currency: income not on a statement yet, and the part still held; every vendor's, or one's with --vendor",
    )
    .option('--vendor <id>', 'one vendor (TC-VE_...)')
    .option('--env <environment>', 'production (real money) or sandbox', environment, 'production' as Environment)
    .option('--json', 'print JSON')
    .action((opts: Partial<VendorOptions> & { env: Environment }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          if (opts.vendor !== undefined) await requireVendor(services, opts.vendor, !!opts.json);
          const owed = await services.payouts.everyBalance(opts.env, opts.vendor);
          const rows = owed.map(({ vendor, balance }) => ({
            vendorId: vendor.id,
            vendorName: vendor.name,
            ...balance,
          }));
          print(!!opts.json, opts.vendor ? rows.map(({ vendorId: _id, vendorName: _name, ...b }) => b) : rows, () =>
            rows.length === 0
              ? 'Nothing owed: no entries are waiting for a statement.'
              : table(
                  ['VENDOR', 'CURRENCY', 'BALANCE', 'HELD', 'CARRIED'],
                  rows.map((b) => [
                    b.vendorId,
                    b.currency,
                    formatMinor(b.balanceMinor, b.currency),
                    formatMinor(b.heldMinor, b.currency),
                    formatMinor(b.carriedMinor, b.currency),
                  ]),
                ),
          );
        }),
      ),
    );

  vendorCommand(
    'create',
    'make a statement per currency of the entries up to the end of --until (payments once PAYOUT_HOLD_DAYS old)',
  )
    .requiredOption('--until <date>', 'the last day to cover, YYYY-MM-DD (UTC)')
    .action((opts: VendorOptions & { until: string }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const made = await services.payouts.create(opts.vendor, opts.env, opts.until);
          print(!!opts.json, made, () =>
            made.length === 0
              ? `Nothing to put on a statement up to ${opts.until} (payments newer than ${services.config.payoutHoldDays} days are held).`
              : made.map(summary).join('\n\n'),
          );
        }),
      ),
    );

  registerList(vendorCommand);
  registerShowAndPaid(payouts);
}

function registerList(vendorCommand: (name: string, description: string) => Command) {
  vendorCommand('list', "the vendor's statements, newest first").action((opts: VendorOptions) =>
    run(!!opts.json, () =>
      withServices(async (services) => {
        await requireVendor(services, opts.vendor, !!opts.json);
        const list = await services.payouts.list(opts.vendor, opts.env);
        print(!!opts.json, list, () =>
          list.length === 0
            ? 'No statements yet.'
            : table(
                ['NUMBER', 'ID', 'CURRENCY', 'UNTIL', 'PAYABLE', 'PAID'],
                list.map((s) => [
                  String(s.number),
                  s.id,
                  s.currency,
                  s.until,
                  formatMinor(s.payableMinor, s.currency),
                  s.paid ? `${s.paid.at} ${s.paid.reference}` : 'no',
                ]),
              ),
        );
      }),
    ),
  );
}

function registerShowAndPaid(payouts: Command) {
  payouts
    .command('show')
    .description('a statement: its totals and every entry it covers (--csv: as CSV, for a spreadsheet or the books)')
    .requiredOption('--statement <id>', 'statement id (TC-PO_...)')
    .option('--csv', 'print CSV')
    .option('--pdf <file>', 'write the statement as a PDF to this file')
    .option('--json', 'print JSON')
    .action((opts: { statement: string; csv?: boolean; pdf?: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { statement, lines, vendorName } = await services.payouts.lines(opts.statement);
          if (opts.pdf !== undefined)
            return writePdf(services, { statement, lines, vendorName }, opts.pdf, !!opts.json);
          if (opts.csv) return void io().out(statementCsv(statement, lines));
          print(!!opts.json, { ...statement, entries: lines }, () => summary(statement));
        }),
      ),
    );

  payouts
    .command('paid')
    .description('record that a statement was paid, with the reference of the transfer')
    .requiredOption('--statement <id>', 'statement id (TC-PO_...)')
    .requiredOption('--reference <reference>', "the payment's reference (a bank transfer id, say)")
    .option('--json', 'print JSON')
    .action((opts: { statement: string; reference: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { statement, changed } = await services.payouts.markPaid(opts.statement, opts.reference);
          print(!!opts.json, statement, () =>
            changed
              ? `Statement ${statement.number} (${statement.id}) marked paid: ${amount(statement.payableMinor, statement.currency)}, reference ${statement.paid?.reference}.`
              : `Statement ${statement.number} (${statement.id}) was already marked paid with that reference.`,
          );
        }),
      ),
    );
}

/** A statement's figures, one per line, as an operator reads them. */
function summary(s: PayoutStatement): string {
  const c = s.currency;
  const line = (label: string, minor: number) => `  ${label.padEnd(22)}${formatMinor(minor, c).padStart(14)} ${c}`;
  return [
    `Statement ${s.number} (${s.id}), ${s.environment}, ${c}: entries before ${s.until}, ${s.entryCount} of them`,
    line('Payments (with tax)', s.totals.grossMinor),
    line('Refunds', s.totals.refundsMinor),
    line('Chargebacks', s.totals.chargebacksMinor),
    line('Tax', -s.totals.taxMinor),
    line('Processor fees', -s.totals.processorFeesMinor),
    line('Platform fees', -s.totals.platformFeesMinor),
    ...(s.totals.roundingMinor !== 0 ? [line('Rounding of parts', s.totals.roundingMinor)] : []),
    line('Income', s.totals.incomeMinor),
    ...(s.carriedInMinor !== 0 ? [line('Carried from before', s.carriedInMinor)] : []),
    line('To pay', s.payableMinor),
    ...(s.carriedOutMinor !== 0 ? [line('Carried to the next', s.carriedOutMinor)] : []),
    `  Paid: ${s.paid ? `${s.paid.at}, reference ${s.paid.reference}` : 'not yet'}`,
  ].join('\n');
}

/** `show --pdf FILE`: the statement's PDF written to the file, as the panel offers it. */
async function writePdf(
  services: Services,
  { statement, lines, vendorName }: { statement: PayoutStatement; lines: StatementLine[]; vendorName: string },
  file: string,
  json: boolean,
) {
  const platform = new URL(services.urls.base('production')).host;
  // Loaded here, not at start: pdfkit and its fonts are what every other command can do without.
  const { renderStatementPdf } = await import('../../documents/statement-pdf.ts');
  const pdf = await renderStatementPdf(statement, lines, { vendor: vendorName, platform });
  writeFileSync(resolve(file), pdf);
  print(
    json,
    { file: resolve(file), bytes: pdf.length },
    () => `Statement ${statement.number} written to ${resolve(file)}.`,
  );
}
