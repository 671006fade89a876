import { csvCell } from '../csv.ts';
import { formatMinor } from '../money/index.ts';
import type { StatementLine } from '../ports.ts';
import type { PayoutStatement } from './payout-model.ts';

/** The statement as CSV: its totals as `total,<name>,<amount>` rows, then one row per entry. */
export function statementCsv(s: PayoutStatement, lines: StatementLine[]): string {
  const c = s.currency;
  const m = (minor: number) => formatMinor(minor, c);
  const totals: [string, number][] = [
    ['gross', s.totals.grossMinor],
    ['refunds', s.totals.refundsMinor],
    ['chargebacks', s.totals.chargebacksMinor],
    ['tax', s.totals.taxMinor],
    ['processor_fees', s.totals.processorFeesMinor],
    ['platform_fees', s.totals.platformFeesMinor],
    ['rounding', s.totals.roundingMinor],
    ['income', s.totals.incomeMinor],
    ['carried_in', s.carriedInMinor],
    ['payable', s.payableMinor],
    ['carried_out', s.carriedOutMinor],
  ];
  const rows = [
    [
      'record',
      'statement',
      'number',
      'currency',
      'name_or_entry',
      'transaction',
      'type',
      'created',
      'amount_total',
      'tax',
      'processor_fee',
      'platform_fee',
      'income',
    ],
    ...totals.map(([name, minor]) => ['total', s.id, String(s.number), c, name, '', '', '', m(minor), '', '', '', '']),
    ...lines.map((l) => [
      'entry',
      s.id,
      String(s.number),
      c,
      l.entryId,
      l.transactionId,
      l.type,
      l.createdAt,
      m(l.amountTotalMinor),
      m(l.taxMinor),
      m(l.transactionFeeMinor),
      m(l.serviceFeeMinor),
      m(l.incomeMinor),
    ]),
  ];
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
}
