import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliWith, failedWith, succeeded } from '../helpers/cli.ts';
import { pdfText } from '../helpers/pdf-text.ts';

/** `opentill payouts` (docs/decisions.md §22) as an operator runs it: balance, create, list, show (text, CSV), paid. */
const SECRET = 'cli-payouts-secret-0123456789-0123456789';

describe('opentill payouts', () => {
  test('a sandbox sale on a statement: its totals, its CSV, its payment recorded once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-payouts-'));
    const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir, PLATFORM_FEE: '5%+0.50USD', PAYOUT_HOLD_DAYS: '0' };
    const { run, json } = cliWith(env);
    try {
      const vendor = (await json('vendor', 'create', '--name', 'Books Co', '--email', 'owner@books.test')).vendor.id;
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
          'USD:40',
        )
      ).id;
      await json(
        'sandbox',
        'purchase',
        '--vendor',
        vendor,
        '--product',
        product,
        '--email',
        'b@example.com',
        '--country',
        'US',
        '--region',
        'OR',
      );
      const today = new Date().toISOString().slice(0, 10);
      // Oregon has no sales tax: 40.00 paid, 2.00 + 0.50 platform fee, 37.50 the vendor's.
      assert.deepEqual(await json('payouts', 'balance', '--vendor', vendor, '--env', 'sandbox'), [
        { currency: 'USD', balanceMinor: 3750, heldMinor: 0, carriedMinor: 0 },
      ]);
      // Without --vendor, every vendor's: what the operator owes, vendor by vendor.
      const every = await json('payouts', 'balance', '--env', 'sandbox');
      assert.deepEqual(
        every.find((b: { vendorId: string }) => b.vendorId === vendor),
        {
          vendorId: vendor,
          vendorName: 'Books Co',
          currency: 'USD',
          balanceMinor: 3750,
          heldMinor: 0,
          carriedMinor: 0,
        },
      );
      const table = await run('payouts', 'balance', '--env', 'sandbox');
      assert.match(table.stdout, new RegExp(`^${vendor} +USD +37\\.50 +0\\.00 +0\\.00$`, 'm'));
      const [statement] = await json('payouts', 'create', '--vendor', vendor, '--env', 'sandbox', '--until', today);
      assert.deepEqual([statement.number, statement.payableMinor, statement.entryCount], [1, 3750, 1]);

      const listed = await run('payouts', 'list', '--vendor', vendor, '--env', 'sandbox');
      succeeded(listed);
      assert.match(listed.stdout, new RegExp(`^1 +${statement.id} +USD +\\S+ +37\\.50 +no$`, 'm'));
      const shown = await run('payouts', 'show', '--statement', statement.id);
      succeeded(shown);
      assert.match(shown.stdout, /^ {2}Platform fees +-2\.50 USD$/m);
      assert.match(shown.stdout, /^ {2}To pay +37\.50 USD$/m);
      const csv = await run('payouts', 'show', '--statement', statement.id, '--csv');
      succeeded(csv);
      const rows = csv.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(','));
      assert.deepEqual(rows[0]!.slice(0, 5), ['record', 'statement', 'number', 'currency', 'name_or_entry']);
      assert.deepEqual(rows.find((r) => r[4] === 'payable')?.[8], '37.50');
      const entry = rows.find((r) => r[0] === 'entry')!;
      assert.deepEqual([entry[6], entry[8], entry[11], entry[12]], ['ONETIME_PAYMENT', '40.00', '2.50', '37.50']);

      const pdfFile = join(dir, 'statement.pdf');
      succeeded(await run('payouts', 'show', '--statement', statement.id, '--pdf', pdfFile));
      const text = await pdfText(readFileSync(pdfFile));
      for (const expected of [
        'Payout statement 1',
        'To Books Co',
        'Platform fees',
        '-$2.50',
        'To pay',
        '$37.50',
        'Entries (1)',
      ])
        assert.ok(text.includes(expected), `the PDF says ${expected}: ${text}`);

      const paid = await run('payouts', 'paid', '--statement', statement.id, '--reference', 'SEPA-1');
      succeeded(paid);
      assert.match(paid.stdout, /marked paid: 37\.50 USD, reference SEPA-1/);
      failedWith(
        await run('payouts', 'paid', '--statement', statement.id, '--reference', 'SEPA-2'),
        /already, on .* SEPA-1/,
      );
      failedWith(await run('payouts', 'create', '--vendor', vendor, '--until', 'someday'), /is not a date/);
      failedWith(await run('payouts', 'balance', '--vendor', 'TC-VE_NOBODY'), /no vendor TC-VE_NOBODY/);
      const none = await run('payouts', 'create', '--vendor', vendor, '--env', 'sandbox', '--until', today);
      succeeded(none);
      assert.match(none.stdout, /^Nothing to put on a statement/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
