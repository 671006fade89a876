import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliWith, failedWith, succeeded } from '../helpers/cli.ts';

/** `opentill coupon create` with a lasting coupon's terms (docs/decisions.md §38), as a vendor's operator runs it. */
const SECRET = 'cli-coupon-secret-0123456789-0123456789-a';

describe('opentill coupon, lasting terms', () => {
  test('a coupon for 3 periods, capped, once per customer, on two products and monthly plans; a wrong term is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-coupon-'));
    const { run, json } = cliWith({ OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir });
    try {
      const vendor = (await json('vendor', 'create', '--name', 'Coupon Co', '--email', 'owner@coupon.test')).vendor.id;
      const plan = async () =>
        (
          await json(
            'product',
            'create',
            ...['--vendor', vendor, '--name', 'Pro', '--price', 'USD:10'],
            ...['--type', 'SUBSCRIPTION', '--frequency', 'MONTHLY'],
          )
        ).id as string;
      const [own, other] = [await plan(), await plan()];
      const created = await run(
        'coupon',
        'create',
        ...['--vendor', vendor, '--product', own, '--code', 'THREE', '--percent', '20'],
        ...['--duration', 'repeating', '--periods', '3', '--max-redemptions', '5', '--max-per-customer', '1'],
        ...['--also-product', other, '--frequency', 'monthly', '--first-purchase-only', '--starts', '2030-01-01'],
      );
      succeeded(created);
      assert.match(
        created.stdout,
        new RegExp(
          `THREE {2}20% off {2}product ${own} {2}repeating 3 periods {2}used 0/5 {2}max 1 per customer {2}first purchase only {2}also ${other} {2}only MONTHLY {2}starts 2030-01-01T00:00:00.000Z`,
        ),
      );
      const [listed] = await json('coupon', 'list', '--vendor', vendor);
      assert.deepEqual(
        [listed.duration, listed.durationPeriods, listed.maxRedemptions, listed.otherProductIds, listed.frequencies],
        ['repeating', 3, 5, [other], ['MONTHLY']],
      );
      failedWith(
        await run(
          'coupon',
          'create',
          '--vendor',
          vendor,
          '--product',
          own,
          '--code',
          'NOPERIODS',
          '--percent',
          '5',
          '--duration',
          'repeating',
        ),
        /needs durationPeriods/,
      );
      failedWith(
        await run(
          'coupon',
          'create',
          '--vendor',
          vendor,
          '--product',
          own,
          '--code',
          'HALFCAP',
          '--percent',
          '5',
          '--max-redemptions',
          '2.5',
        ),
        /maxRedemptions must be a whole number/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
