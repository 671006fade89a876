import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { TAX_SCHEMES, taxReportCsv, type TaxScheme } from '../../domain/books/index.ts';
import type { Environment } from '../../domain/model.ts';
import { loadExchangeRateDays } from '../../files/exchange-rates-file.ts';
import { environment } from '../option-parsers.ts';
import { io, print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

interface TaxReportOptions {
  period: string;
  scheme: TaxScheme | 'all';
  vendor?: string;
  env: Environment;
  rates?: string;
  json?: boolean;
}

const scheme = (value: string): TaxScheme | 'all' => {
  if (value === 'all' || (TAX_SCHEMES as readonly string[]).includes(value)) return value as TaxScheme | 'all';
  throw new InvalidArgumentError(`must be one of ${TAX_SCHEMES.join(', ')} or all`);
};

/**
 * `opentill tax report --period 2026-Q3 [--scheme oss|uk|us|ca|au|all] [--vendor V]` (docs/decisions.md
 * §23): the sales and tax of a period per return, as CSV. Without --vendor, every vendor's: the operator
 * selling for them is the seller.
 */
export function registerTaxReportCommand(tax: Command) {
  tax
    .command('report')
    .description(
      "a period's tax returns as CSV: EU OSS per member state and rate (in euros at the ECB rate of the period's last day, the EC sales list and domestic sales apart), UK VAT, US sales tax per state, Canada per province, Australia GST",
    )
    .requiredOption('--period <period>', 'a quarter (2026-Q3), a month (2026-07) or a year (2026)')
    .option('--scheme <scheme>', `${TAX_SCHEMES.join(', ')} or all`, scheme, 'all' as const)
    .option('--vendor <id>', "one vendor's sales (a vendor selling for itself); without it, every vendor's")
    .option('--env <environment>', 'production (real sales) or sandbox', environment, 'production' as Environment)
    .option(
      '--rates <file>',
      "the ECB rates (eurofxref-hist.xml) with the period's last day; default: the days opentill rates import kept, and the table in use",
    )
    .option('--json', 'print JSON')
    .action((opts: TaxReportOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          if (opts.vendor !== undefined) await requireVendor(services, opts.vendor, !!opts.json);
          const rates = opts.rates ? loadExchangeRateDays(resolve(opts.rates)) : services.rateHistory();
          const { period, rows } = await services.taxReturns.report({
            period: opts.period,
            scheme: opts.scheme,
            environment: opts.env,
            vendorId: opts.vendor,
            rates,
          });
          if (opts.json) return print(true, { period, rows }, () => '');
          io().out(taxReportCsv(period, rows));
        }),
      ),
    );
}
