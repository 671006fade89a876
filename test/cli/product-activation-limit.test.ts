import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, failedWith, parseJson, succeeded, type CliResult } from '../helpers/cli.ts';

/** The result of a run that must succeed. */
const ok = (result: CliResult) => (succeeded(result), result);

/** `opentill product create --activation-limit` and `opentill product activation-limit` (docs/decisions.md §40). */
test('a product is created with an activation limit, and the limit changed or lifted; a bad one is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-cli-limit-'));
  const run = (...args: string[]) =>
    cli(args, { OPENTILL_SECRET: 'cli-test-secret-0123456789-0123456789-ab', OPENTILL_DATA_DIR: dir });
  try {
    const vendor = parseJson(ok(await run('vendor', 'create', '--name', 'A', '--email', 'a@a.test', '--json'))).vendor
      .id as string;
    const create = (...extra: string[]) =>
      run(
        'product',
        'create',
        '--vendor',
        vendor,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:9',
        '--licences',
        ...extra,
      );
    const text = ok(await create('--activation-limit', '3'));
    assert.match(text.stdout, /issues licences, each key activated on at most 3 instances/);
    const product = parseJson(ok(await create('--activation-limit', '2', '--json')));
    assert.equal(product.activationLimit, 2);
    assert.equal(parseJson(ok(await create('--json'))).activationLimit, null, 'no limit unless given');

    const set = (limit: string) =>
      run('product', 'activation-limit', '--vendor', vendor, '--product', product.id, '--limit', limit);
    assert.match(ok(await set('5')).stdout, /at most 5 instances/);
    assert.match(ok(await set('none')).stdout, /any number of instances/);
    for (const bad of ['0', '2.5', 'many', '10001']) {
      failedWith(await set(bad), /activationLimit must be a whole number from 1 to 10000, or null for no limit/);
      failedWith(await create('--activation-limit', bad), /activationLimit must be a whole number/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
