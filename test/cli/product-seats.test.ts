import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, failedWith, parseJson, succeeded, type CliResult } from '../helpers/cli.ts';

const ok = (result: CliResult) => (succeeded(result), result);

/** `opentill product create --seats MIN-MAX --seat-tier FROM:CUR:AMOUNT` (docs/decisions.md §39). */
test('a product is created per seat with volume tiers; a range or tier the domain refuses fails with its words', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-cli-seats-'));
  const run = (...args: string[]) =>
    cli(args, { OPENTILL_SECRET: 'cli-test-secret-0123456789-0123456789-ab', OPENTILL_DATA_DIR: dir });
  try {
    const vendor = parseJson(ok(await run('vendor', 'create', '--name', 'A', '--email', 'a@a.test', '--json'))).vendor
      .id as string;
    const create = (...extra: string[]) =>
      run('product', 'create', '--vendor', vendor, '--name', 'Team', '--type', 'SUBSCRIPTION', ...extra);
    const product = parseJson(
      ok(
        await create(
          '--price',
          'USD:10',
          '--price',
          'EUR:9',
          '--seats',
          '1-50',
          '--seat-tier',
          '10:USD:8',
          '--seat-tier',
          '10:EUR:7.50',
          '--json',
        ),
      ),
    );
    assert.deepEqual(product.seats, {
      minQuantity: 1,
      maxQuantity: 50,
      tiers: [{ fromQuantity: 10, prices: { USD: 800, EUR: 750 } }],
    });
    assert.equal(
      parseJson(ok(await create('--price', 'USD:10', '--json'))).seats,
      null,
      'one per purchase unless given',
    );
    failedWith(await create('--price', 'USD:10', '--seats', '5-2'), /minQuantity must not be above/);
    failedWith(
      await create('--price', 'USD:10', '--seats', '1-50', '--seat-tier', 'ten:USD:8'),
      /FROM:CURRENCY:AMOUNT/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
