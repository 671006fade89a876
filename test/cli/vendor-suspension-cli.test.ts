import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';

/**
 * From the CLI (docs/decisions.md §24): `opentill vendor suspend|resume`, each safe to run again, the
 * state in `vendor list`; and `opentill doctor` naming each vendor (or the operator) whose seller
 * identity keeps production checkout closed, with the fix.
 */
const SECRET = 'cli-suspend-secret-0123456789-0123456789';

describe('opentill vendor suspend, resume, list and doctor', () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-suspend-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('suspend with stopped renewals and a reason, shown in vendor list; again changes nothing; resume', async () => {
    const run = (...args: string[]) => cli(args, { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: join(root, 'a') });
    const created = await run('vendor', 'create', '--name', 'Acme', '--email', 'owner@acme.test', '--json');
    succeeded(created);
    const id = parseJson(created).vendor.id as string;

    const suspended = await run('vendor', 'suspend', '--vendor', id, '--stop-renewals', '--reason', 'unpaid  fees');
    succeeded(suspended);
    assert.match(
      suspended.stdout,
      /^Vendor Acme \(TC-VE_\S+\) is suspended since \S+, renewals stopped \(unpaid fees\)\.$/m,
    );
    assert.match(suspended.stdout, /no renewal is charged until it is resumed/);
    const again = parseJson(await run('vendor', 'suspend', '--vendor', id, '--json'));
    assert.deepEqual(
      [again.suspended, again.renewalsStopped, again.reason, again.changed],
      [true, true, 'unpaid fees', false],
      'flags not given leave the suspension as it is',
    );
    const listed = await run('vendor', 'list');
    assert.match(
      listed.stdout,
      new RegExp(`^${id} .* yes +suspended since \\S+, renewals stopped \\(unpaid fees\\) +`, 'm'),
    );
    const [json] = parseJson(await run('vendor', 'list', '--json'));
    assert.equal(json.suspension.renewalsStopped, true);
    assert.deepEqual(json.identityMissing, ['legal name', 'address', 'country', 'tax ID']);

    const going = parseJson(await run('vendor', 'suspend', '--vendor', id, '--continue-renewals', '--json'));
    assert.deepEqual([going.renewalsStopped, going.changed], [false, true]);
    failedWith(
      await run('vendor', 'suspend', '--vendor', id, '--stop-renewals', '--continue-renewals'),
      /--stop-renewals or --continue-renewals, not both/,
    );
    failedWith(await run('vendor', 'suspend', '--vendor', 'TC-VE_NOBODY'), /Vendor TC-VE_NOBODY was not found/);

    const resumed = await run('vendor', 'resume', '--vendor', id);
    succeeded(resumed);
    assert.match(resumed.stdout, /is resumed: its checkout takes purchases/);
    assert.match((await run('vendor', 'resume', '--vendor', id)).stdout, /was not suspended; nothing changed/);
    assert.match((await run('vendor', 'list')).stdout, new RegExp(`^${id} .* yes +active +`, 'm'));
  });

  test('doctor: a vendor without its identity is a note with the fix; the operator selling without SELLER_TAX_ID is a fix', async () => {
    const dir = join(root, 'b');
    const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir };
    const created = await cli(['vendor', 'create', '--name', 'Acme', '--email', 'o@acme.test', '--json'], env);
    const id = parseJson(created).vendor.id as string;
    succeeded(await cli(['vendor', 'settings', '--vendor', id, '--seller-name', 'Acme GmbH', '--country', 'DE'], env));
    const doctor = async (extra: Record<string, string> = {}) => {
      const result = await cli(['doctor', '--json'], { ...env, ...extra });
      const checks = parseJson(result).checks as { name: string; status: string; detail: string }[];
      return { code: result.code, check: (name: RegExp) => checks.find((c) => name.test(c.name)) };
    };

    const vendorMode = await doctor();
    assert.equal(vendorMode.code, 0, 'a vendor that has not finished its settings does not make the server unhealthy');
    const note = vendorMode.check(/^seller identity of Acme/);
    assert.equal(note?.status, 'note');
    assert.match(
      note!.detail,
      new RegExp(
        `until its address, tax ID are set: the panel's Settings, or opentill vendor settings --vendor ${id} --address`,
      ),
    );
    succeeded(await cli(['vendor', 'settings', '--vendor', id, '--address', 'Str. 1|Berlin', '--tax-id', 'DE1'], env));
    assert.equal((await doctor()).check(/^seller identity/)?.status, 'ok');

    const operator = await doctor({
      SELLER_OF_RECORD: 'operator',
      SELLER_NAME: 'Platform SAS',
      SELLER_ADDRESS: '5 rue de la Paix|Paris',
      SELLER_COUNTRY: 'FR',
    });
    assert.equal(operator.code, 1);
    assert.equal(operator.check(/^seller identity$/)?.status, 'fix');
    assert.match(
      operator.check(/^seller identity$/)!.detail,
      /its tax ID is not set, so no production checkout opens: set SELLER_TAX_ID/,
    );
  });
});
