import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliWith, failedWith, succeeded } from '../helpers/cli.ts';

/** `opentill tax report` (docs/decisions.md §23) as a seller runs it: the quarter's returns as CSV, with the ECB history given. */
const SECRET = 'cli-tax-report-secret-0123456789-012345';

describe('opentill tax report', () => {
  test("a quarter's returns as CSV: OSS in euros at the ECB rate of its last day, the US per state", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-tax-report-'));
    const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir, SELLER_COUNTRY: 'FR' };
    const { run, json } = cliWith(env);
    try {
      const vendor = (await json('vendor', 'create', '--name', 'Tax Co', '--email', 'owner@tax.test')).vendor.id;
      const product = (
        await json(
          'product',
          'create',
          '--vendor',
          vendor,
          '--env',
          'sandbox',
          '--name',
          'Pro',
          '--type',
          'ONETIME',
          '--price',
          'USD:100',
        )
      ).id;
      for (const where of [
        ['--country', 'DE'],
        ['--country', 'US', '--region', 'NY'],
      ])
        await json(
          'sandbox',
          'purchase',
          '--vendor',
          vendor,
          '--product',
          product,
          '--email',
          'b@example.com',
          '--currency',
          'USD',
          ...where,
        );
      const now = new Date();
      const quarter = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
      const lastDay = new Date(Date.UTC(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3 + 3, 0))
        .toISOString()
        .slice(0, 10);
      const history = join(dir, 'eurofxref-hist.xml');
      writeFileSync(history, `<Cube><Cube time="${lastDay}"><Cube currency="USD" rate="1.25"/></Cube></Cube>`);

      const csv = await run(
        'tax',
        'report',
        '--period',
        quarter,
        '--vendor',
        vendor,
        '--env',
        'sandbox',
        '--rates',
        history,
      );
      succeeded(csv);
      const [header, ...rows] = csv.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(','));
      assert.deepEqual(header, [
        'period',
        'scheme',
        'section',
        'jurisdiction',
        'tax_rate',
        'buyer_vat_id',
        'currency',
        'net',
        'tax',
        'entries',
        'net_eur',
        'tax_eur',
        'eur_rates_of',
        'zip',
        'tax_region',
      ]);
      assert.deepEqual(
        rows.find((r) => r[1] === 'oss'),
        [quarter, 'oss', 'oss', 'DE', '0.19', '', 'USD', '100.00', '19.00', '1', '80.00', '15.20', lastDay, '', ''],
      );
      assert.deepEqual(rows.find((r) => r[1] === 'us')?.slice(1, 4), ['us', 'sales', 'US-NY']);

      failedWith(
        await run('tax', 'report', '--period', quarter, '--vendor', vendor, '--env', 'sandbox'),
        /No ECB reference rates for/,
      );
      failedWith(await run('tax', 'report', '--period', 'last quarter'), /is not a period/);
      failedWith(
        await run('tax', 'report', '--period', quarter, '--scheme', 'mars'),
        /must be one of oss, uk, us, ca, au or all/,
      );
      const usOnly = await run('tax', 'report', '--period', quarter, '--scheme', 'us', '--env', 'sandbox');
      succeeded(usOnly);
      assert.equal(
        usOnly.stdout.trim().split('\n').length,
        2,
        'the header and New York: no rates needed without EU sales',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
