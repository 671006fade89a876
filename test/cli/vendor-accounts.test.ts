import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';

/** `opentill vendor list` and `opentill product list` through the real binary, on a data directory of their own. */
const SECRET = 'cli-test-secret-0123456789-0123456789-ab';

describe('opentill vendor list and product list', () => {
  test('list the vendors and a vendor’s products per environment, as text and as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-accounts-'));
    const run = (...args: string[]) => cli(args, { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir });
    try {
      const empty = await run('vendor', 'list');
      succeeded(empty);
      assert.match(empty.stdout, /No vendors yet/);
      const created = await run('vendor', 'create', '--name', 'Acme Tools', '--email', 'owner@acme.test', '--json');
      succeeded(created);
      const id = parseJson(created).vendor.id as string;

      const json = await run('vendor', 'list', '--json');
      succeeded(json);
      const vendors = parseJson(json) as { id: string; name: string; email: string; createdAt: string }[];
      assert.deepEqual(
        vendors.map(({ id, name, email }) => ({ id, name, email })),
        [{ id, name: 'Acme Tools', email: 'owner@acme.test' }],
      );
      assert.ok(!Number.isNaN(Date.parse(vendors[0]!.createdAt)));
      const text = await run('vendor', 'list');
      succeeded(text);
      assert.match(text.stdout, /^ID +NAME +E-MAIL +CREATED +PRODUCTION +STATE +SELLER IDENTITY$/m);
      assert.match(
        text.stdout,
        new RegExp(
          `^${id} +Acme Tools +owner@acme\\.test +\\d{4}-\\S+ +yes +active +legal name, address, country, tax ID missing$`,
          'm',
        ),
        'a vendor of the CLI may use production, once its seller identity is complete',
      );

      succeeded(
        await run(
          'product',
          'create',
          '--vendor',
          id,
          '--name',
          'Pro',
          '--type',
          'ONETIME',
          '--price',
          'USD:49',
          '--price',
          'EUR:45',
        ),
      );
      succeeded(
        await run(
          'product',
          'create',
          '--vendor',
          id,
          '--name',
          'Live',
          '--type',
          'SUBSCRIPTION',
          '--frequency',
          'MONTHLY',
          '--price',
          'USD:9',
          '--env',
          'production',
        ),
      );
      const sandbox = await run('product', 'list', '--vendor', id, '--json');
      succeeded(sandbox);
      assert.deepEqual(
        (parseJson(sandbox) as { name: string; environment: string }[]).map((p) => [p.name, p.environment]),
        [['Pro', 'sandbox']],
      );
      const production = await run('product', 'list', '--vendor', id, '--environment', 'production');
      succeeded(production);
      assert.match(production.stdout, /^TC-PR_\S+ +Live +SUBSCRIPTION MONTHLY +9\.00 USD/m);
      assert.doesNotMatch(production.stdout, /Pro/);
      failedWith(await run('product', 'list', '--vendor', 'TC-VE_nobody'), /There is no vendor TC-VE_nobody/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
