import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  addToRateHistory,
  BUNDLED_RATES_FILE,
  loadExchangeRateDays,
  loadExchangeRates,
  writeExchangeRatesFile,
} from '../../files/exchange-rates-file.ts';
import { formatDecimal } from '../../domain/money/index.ts';
import { print, run } from '../output.ts';
import { configOrFail } from '../with-services.ts';

/** Where the table in use comes from: none named is the bundled one; the imported file, or RATES_FILE's own. */
function sourceOf(ratesFile: string | undefined, importedRatesFile: string): 'bundled' | 'imported' | 'RATES_FILE' {
  if (ratesFile === undefined) return 'bundled';
  return ratesFile === importedRatesFile ? 'imported' : 'RATES_FILE';
}

/** `opentill rates import|show`: files only, no database, so neither opens the services. */
export function registerRatesCommands(program: Command) {
  const rates = program
    .command('rates')
    .description('the exchange-rate table that converts USD prices (ECB reference rates: units per 1 EUR)');

  rates
    .command('import <file>')
    .description(
      'validate an ECB eurofxref XML (a day, or the history eurofxref-hist.xml) or a currency,rate CSV and make its newest day the table in use from the next server start; every day is kept for tax returns',
    )
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const config = configOrFail(!!opts.json);
        // Validated in full before anything is written: a bad file leaves the current table as it was.
        const table = loadExchangeRates(resolve(file));
        const days = loadExchangeRateDays(resolve(file));
        writeExchangeRatesFile(config.importedRatesFile, table);
        // Every day of it is kept too: tax returns convert at the rate of a period's last day (§23).
        const historyDays = addToRateHistory(config.ratesHistoryFile, days);
        const overriddenBy =
          config.ratesFile && config.ratesFile !== config.importedRatesFile ? config.ratesFile : null;
        print(
          !!opts.json,
          {
            file: config.importedRatesFile,
            date: table.date,
            currencies: table.perEuro.size,
            restartRequired: true,
            overriddenBy,
            history: { file: config.ratesHistoryFile, days: historyDays },
          },
          () =>
            [
              `Imported ${table.perEuro.size} currencies (units per 1 EUR) dated ${table.date} into ${config.importedRatesFile}.`,
              'A running server keeps its current table: restart it to use these rates.',
              `Kept ${days.length} day${days.length === 1 ? '' : 's'} for tax returns in ${config.ratesHistoryFile} (${historyDays} in all).`,
              ...(overriddenBy
                ? [`Note: RATES_FILE (${overriddenBy}) takes precedence; unset it for the server to use these rates.`]
                : []),
            ].join('\n'),
        );
      }),
    );

  rates
    .command('show')
    .description('print the exchange-rate table a server starting now would use, and where it comes from')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const config = configOrFail(!!opts.json);
        const file = config.ratesFile ?? BUNDLED_RATES_FILE;
        const source = sourceOf(config.ratesFile, config.importedRatesFile);
        const table = loadExchangeRates(file);
        const perEuro = Object.fromEntries(
          [...table.perEuro].map(([currency, rate]) => [currency, formatDecimal(rate)]),
        );
        const origin = {
          bundled: 'the table bundled with opentill',
          imported: 'imported with `opentill rates import`',
          RATES_FILE: 'set by RATES_FILE',
        }[source];
        print(!!opts.json, { source, file, date: table.date, currencies: table.perEuro.size, perEuro }, () =>
          [
            `Exchange rates dated ${table.date}: ${table.perEuro.size} currencies, units per 1 EUR.`,
            `Source: ${file} (${origin})`,
            ...Object.entries(perEuro).map(([currency, rate]) => `  ${currency}  ${rate}`),
          ].join('\n'),
        );
      }),
    );
}
