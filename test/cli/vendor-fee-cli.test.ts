import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';

/** `opentill vendor fee` (docs/decisions.md §21): a vendor's platform fee shown, set, refused, and returned to PLATFORM_FEE. */
const SECRET = 'cli-fee-secret-0123456789-0123456789-abcd';

describe('opentill vendor fee', () => {
  test("shows the fee in force, sets the vendor's own, refuses a fee it cannot take, and returns to PLATFORM_FEE", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-fee-'));
    const run = (...args: string[]) =>
      cli(args, { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir, PLATFORM_FEE: '5% + 0.50usd' });
    try {
      const created = await run('vendor', 'create', '--name', 'Fee Co', '--email', 'owner@fee.test', '--json');
      succeeded(created);
      const id = parseJson(created).vendor.id as string;
      const fee = async (...args: string[]) => {
        const result = await run('vendor', 'fee', '--vendor', id, ...args, '--json');
        succeeded(result);
        return parseJson(result) as { vendorId: string; platformFee: string; own: boolean };
      };

      assert.deepEqual(await fee(), { vendorId: id, platformFee: '5%+0.50USD', own: false });
      const shown = await run('vendor', 'fee', '--vendor', id);
      succeeded(shown);
      assert.match(
        shown.stdout,
        /^Fee Co \(TC-VE_\S+\) pays a platform fee of 5%\+0\.50USD on each payment \(PLATFORM_FEE, the default\)\.$/m,
      );

      assert.deepEqual(await fee('--fee', '2.50%+0.30EUR'), { vendorId: id, platformFee: '2.5%+0.30EUR', own: true });
      assert.deepEqual(await fee(), { vendorId: id, platformFee: '2.5%+0.30EUR', own: true });
      failedWith(await run('vendor', 'fee', '--vendor', id, '--fee', '110%'), /takes more than 100%/);
      failedWith(await run('vendor', 'fee', '--vendor', id, '--fee', 'lots'), /is not a fee: write a percentage/);
      failedWith(
        await run('vendor', 'fee', '--vendor', id, '--fee', '1%', '--default'),
        /--fee <fee> or --default, not both/,
      );
      failedWith(await run('vendor', 'fee', '--vendor', 'TC-VE_NOBODY'), /TC-VE_NOBODY/);
      assert.deepEqual(
        await fee(),
        { vendorId: id, platformFee: '2.5%+0.30EUR', own: true },
        'a refused fee set nothing',
      );

      assert.deepEqual(await fee('--default'), { vendorId: id, platformFee: '5%+0.50USD', own: false });
      failedWith(
        await cli(['vendor', 'fee', '--vendor', id], {
          OPENTILL_SECRET: SECRET,
          OPENTILL_DATA_DIR: dir,
          PLATFORM_FEE: '5%+1NGN',
        }),
        /PLATFORM_FEE: .*NGN, which the exchange-rate table does not list/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
