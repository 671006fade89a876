import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { cli as runCli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';

/** `opentill tax import` as an operator runs it (through the binary's entry), a data directory of its own per test. */
const SECRET = 'tax-test-secret-0123456789-0123456789-01';
const HEADER =
  'State,ZipCode,TaxRegionName,StateRate,EstimatedCombinedRate,EstimatedCountyRate,EstimatedCityRate,EstimatedSpecialRate,RiskLevel';
const NY = [
  HEADER,
  'NY,10001,NEW YORK CITY,0.04,0.08875,0,0.045,0.00375,1',
  'NY,12207,ALBANY,0.04,0.08,0.04,0,0,1',
  '',
].join('\n');
const CA = [HEADER, 'CA,94103,SAN FRANCISCO,0.0725,0.08625,0.0025,0,0.01125,1', ''].join('\n');

function scratch() {
  const root = mkdtempSync(join(tmpdir(), 'opentill-tax-'));
  const dir = join(root, 'data');
  const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir };
  return {
    dir,
    env,
    table: join(dir, 'us-sales-tax.csv'),
    file(name: string, content: string) {
      const path = join(root, name);
      writeFileSync(path, content);
      return path;
    },
    run: (...args: string[]) => runCli(args, env),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

describe('opentill tax import', { concurrency: 2 }, () => {
  test('a good file is written into the data directory and used by the next start: 10001 pays 8.875%', async () => {
    const d = scratch();
    try {
      const imported = await d.run('tax', 'import', d.file('TAXRATES_ZIP5_NY.csv', NY), '--json');
      succeeded(imported);
      assert.deepEqual(parseJson(imported), {
        file: d.table,
        zipCodes: 2,
        states: ['NY'],
        restartRequired: true,
        overriddenBy: null,
      });
      assert.deepEqual(
        readdirSync(d.dir).filter((f) => f.includes('sales-tax')),
        ['us-sales-tax.csv'],
        'no temporary file left',
      );

      // Another state's file adds its rows; the state's own file replaces its rows.
      succeeded(await d.run('tax', 'import', d.file('ca.csv', CA)));
      succeeded(
        await d.run(
          'tax',
          'import',
          d.file('ny2.csv', [HEADER, 'NY,10001,NEW YORK CITY,0.04,0.08875,0,0.045,0.00375,1', ''].join('\n')),
        ),
      );
      const text = readFileSync(d.table, 'utf8');
      assert.match(text, /^CA,94103,/m);
      assert.doesNotMatch(text, /12207/);

      const config = loadConfig({ ...d.env, SQLITE_FILE: ':memory:', LOG_LEVEL: 'silent', OPENTILL_DEMO: 'false' });
      assert.equal(config.salesTaxFile, d.table);
      const services = createServices(config);
      try {
        await services.maintenance.migrate();
        const vendor = await services.catalog.createVendor({ name: 'Acme', email: 'owner@acme.test' });
        const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
        const product = await services.catalog.createProduct(scope, {
          name: 'Pro',
          type: 'ONETIME',
          prices: [{ currency: 'USD', value: 100 }],
        } as never);
        const { quote } = await services.purchases.quote(scope, product.id, {
          country: 'US',
          region: 'NY',
          zip: '10001',
        });
        assert.deepEqual([quote.taxRate, quote.taxMinor, quote.taxEstimated], ['0.08875', 888, undefined]);
        const albany = await services.purchases.quote(scope, product.id, { country: 'US', region: 'NY', zip: '12207' });
        assert.deepEqual([albany.quote.taxRate, albany.quote.taxEstimated], ['0.04', true]);
      } finally {
        await services.close();
      }
    } finally {
      d.remove();
    }
  });

  test('a bad file exits non-zero, names its line, and changes nothing', async () => {
    const d = scratch();
    try {
      const bad = await d.run('tax', 'import', d.file('bad.csv', NY.replace('0.08875', '0.09')));
      failedWith(bad, /bad\.csv: line 2: EstimatedCombinedRate 0\.09 is not/);
      assert.notEqual(bad.code, 0);
      assert.equal(existsSync(d.table), false, 'nothing written');

      succeeded(await d.run('tax', 'import', d.file('ny.csv', NY)));
      const before = readFileSync(d.table, 'utf8');
      failedWith(
        await d.run('tax', 'import', d.file('zip.csv', NY.replace('12207', '1220'))),
        /line 3: ZipCode "1220"/,
      );
      failedWith(
        await d.run('tax', 'import', d.file('ca.csv', CA), d.file('pct.csv', CA.replace('0.0725', '7.25'))),
        /pct\.csv: line 2: StateRate 7\.25 is above 0\.2/,
      );
      failedWith(await d.run('tax', 'import', join(d.dir, 'missing.csv')), /Cannot read the sales tax table/);
      assert.equal(readFileSync(d.table, 'utf8'), before, 'the table in use is as it was');
    } finally {
      d.remove();
    }
  });
});
