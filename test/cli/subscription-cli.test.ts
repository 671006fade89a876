import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliWith, failedWith, succeeded } from '../helpers/cli.ts';

/** `opentill subscription pause|resume` (docs/decisions.md §41) as a vendor's operator runs it. */
const SECRET = 'cli-pause-secret-0123456789-0123456789-ab';

describe('opentill subscription', () => {
  test('pause until a date, pause again with nothing changed, resume before it took effect, and a refusal for a one-time payment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-pause-'));
    const { run, json } = cliWith({ OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir });
    try {
      const vendor = (await json('vendor', 'create', '--name', 'Pause Co', '--email', 'owner@pause.test')).vendor.id;
      const product = async (...kind: string[]) =>
        (
          await json(
            'product',
            'create',
            '--vendor',
            vendor,
            '--env',
            'sandbox',
            '--name',
            'Pro',
            '--price',
            'USD:10',
            ...kind,
          )
        ).id;
      const buy = async (productId: string) =>
        (
          await json(
            'sandbox',
            'purchase',
            '--vendor',
            vendor,
            '--product',
            productId,
            '--email',
            'b@example.com',
            '--country',
            'US',
            '--region',
            'OR',
          )
        ).transaction.id;
      const id = await buy(await product('--type', 'SUBSCRIPTION', '--frequency', 'MONTHLY'));
      const paused = await json('subscription', 'pause', id, '--vendor', vendor, '--resume-at', '2099-01-01T00:00:00Z');
      assert.equal(paused.changed, true);
      assert.equal(paused.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(paused.nextCharge, '2099-01-01T00:00:00.000Z');
      assert.equal(paused.pause.resumesAt, '2099-01-01T00:00:00.000Z');
      const text = await run('subscription', 'pause', id, '--vendor', vendor, '--resume-at', '2099-01-01T00:00:00Z');
      succeeded(text);
      assert.match(
        text.stdout,
        /is paused from \S+ until 2099-01-01T00:00:00.000Z, when it is charged again \(nothing changed\)/,
      );
      const resumed = await json('subscription', 'resume', id, '--vendor', vendor);
      assert.equal(resumed.changed, true);
      assert.equal(resumed.pause, null);
      assert.equal(resumed.nextCharge, paused.pause.startsAt);

      const onetime = await buy(await product('--type', 'ONETIME'));
      failedWith(await run('subscription', 'pause', onetime, '--vendor', vendor), /Only a subscription can be paused/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
