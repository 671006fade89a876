import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';

/**
 * The package as it would be published: `npm run sdk:build` emits ESM and .d.ts files that a
 * TypeScript project on Node resolves as `@opentill/client`, with the API's enumerations typed, and
 * that Node imports.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

const CONSUMER = `import { OpenTill, OpenTillError, verifyWebhook, type ChangedTransaction, type paths } from '@opentill/client';

const client = new OpenTill({ baseUrl: 'http://localhost:3000/sandbox', credential: 'login:password' });
export async function handle(change: ChangedTransaction): Promise<string> {
  const transaction = await client.readTransaction(change.id);
  const status: 'ONE_TIME_PAYMENT_STATUS_PAID' | string = transaction.transactionStatus;
  // @ts-expect-error the change flag is one of the API's values, not any string
  const flag: ChangedTransaction['changeStatus'] = 'CHANGED_STATUS_SOLD';
  const error = new Error() as unknown;
  if (error instanceof OpenTillError) return error.requestId ?? error.code;
  await verifyWebhook('{}', new Headers(), 'whsec_AAAA');
  const path: keyof paths = '/v1/changed-transactions';
  return status + flag + path + transaction.entries.length;
}
`;

test('the built package type-checks in a TypeScript project on Node and imports as ESM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-sdk-package-'));
  try {
    const pkg = join(dir, 'node_modules', '@opentill', 'client');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(root, 'packages/client/package.json'), join(pkg, 'package.json'));
    await run(process.execPath, [join(root, 'packages/client/build.mjs'), '--out', join(pkg, 'dist')]);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', dir]).catch((e: { stdout: string }) => e);
    assert.equal(checked.stdout, '', `tsc: ${checked.stdout}`);
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@opentill/client'); console.log(Object.keys(m).sort().join(' '))",
      ],
      { cwd: dir },
    );
    assert.match(imported.stdout, /OpenTill .*verifyWebhook/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
