import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { formatDecimal } from '../../domain/money/index.ts';
import type { UsSalesTaxTable, ZipTaxRow } from '../../domain/tax/index.ts';
import { loadUsSalesTax, writeUsSalesTaxFile } from '../../files/us-sales-tax-file.ts';
import { print, run } from '../output.ts';
import { configOrFail } from '../with-services.ts';
import { registerTaxReportCommand } from './tax-report.ts';

/** `opentill tax import`: the ZIP-level US sales tax table (files only, no database); `tax report`: the returns. */
export function registerTaxCommands(program: Command) {
  const tax = program
    .command('tax')
    .description(
      'the tax returns of a period, and the ZIP-level US sales tax table (combined state, county, city and special rates)',
    );
  registerTaxReportCommand(tax);

  tax
    .command('import <files...>')
    .description(
      'validate ZIP-level rate tables (CSV: State,ZipCode,TaxRegionName,StateRate,EstimatedCombinedRate,EstimatedCountyRate,EstimatedCityRate,EstimatedSpecialRate,RiskLevel, one file per state as published) and make them the table in use from the next server start; the states in the files replace their rows, other states keep theirs',
    )
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { json?: boolean }) =>
      run(!!opts.json, async () => {
        const config = configOrFail(!!opts.json);
        // Every file is checked in full before anything is written: a bad one leaves the table in use as it was.
        const imported = files.map((file) => loadUsSalesTax(resolve(file)));
        const rows = new Map<string, ZipTaxRow>();
        const states = new Set(imported.flatMap((t) => [...t.rows.values()].map((r) => r.state)));
        if (existsSync(config.importedSalesTaxFile)) {
          for (const row of loadUsSalesTax(config.importedSalesTaxFile).rows.values())
            if (!states.has(row.state)) rows.set(row.zip, row);
        }
        for (const table of imported) for (const row of table.rows.values()) rows.set(row.zip, row);
        const table: UsSalesTaxTable = { rows };
        writeUsSalesTaxFile(config.importedSalesTaxFile, table);
        const overriddenBy =
          config.salesTaxFile && config.salesTaxFile !== config.importedSalesTaxFile ? config.salesTaxFile : null;
        const sample = [...rows.values()][0]!;
        print(
          !!opts.json,
          {
            file: config.importedSalesTaxFile,
            zipCodes: rows.size,
            states: [...new Set([...rows.values()].map((r) => r.state))].sort(),
            restartRequired: true,
            overriddenBy,
          },
          () =>
            [
              `Imported ${imported.reduce((n, t) => n + t.rows.size, 0)} ZIP codes of ${[...states].sort().join(', ')} into ${config.importedSalesTaxFile} (${rows.size} ZIP codes in all).`,
              `For example ${sample.zip} (${sample.regionName || sample.state}): ${formatDecimal(sample.combined)}.`,
              'A running server keeps its current table: restart it to use these rates.',
              ...(overriddenBy
                ? [
                    `Note: SALES_TAX_FILE (${overriddenBy}) takes precedence; unset it for the server to use this table.`,
                  ]
                : []),
            ].join('\n'),
        );
      }),
    );
}
