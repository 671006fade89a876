import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { seedDemoIfEmpty } from '../../src/demo-seed.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The package README's quick start, run as written: its code block saved as quickstart.mjs beside a
 * node_modules/@opentill/client built from packages/client/src, against an opentill holding the demo
 * that the first `npm start` seeds, with the environment variables the README names.
 */
const README = fileURLToPath(new URL('../../packages/client/README.md', import.meta.url));

/** The first ```js block under "## Quick start". */
export function quickStart(readme: string): string {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'the README has a js block under "## Quick start"');
  return match[1]!;
}

const run = promisify(execFile);

for (const kind of await storeKinds()) {
  describe(`the SDK README's quick start (${kind})`, () => {
    let t: TestApp;
    let dir: string;
    let credential: string;
    before(async () => {
      t = await startTestApp(kind);
      const demo = await seedDemoIfEmpty(t.services);
      credential = demo!.credential.authorization;
      dir = mkdtempSync(join(tmpdir(), 'opentill-quickstart-'));
      const pkg = join(dir, 'node_modules', '@opentill', 'client');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(
        join(pkg, 'package.json'),
        JSON.stringify({ name: '@opentill/client', type: 'module', exports: './index.js' }),
      );
      await build({
        entryPoints: [fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url))],
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        outfile: join(pkg, 'index.js'),
        logLevel: 'silent',
      });
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    });

    test("is at most ten lines of code, and runs as written: bob@example.com's transaction, then the demo's changes, each once", async () => {
      const code = quickStart(readFileSync(README, 'utf8'));
      assert.ok(code.split('\n').filter((line) => line.trim()).length <= 10, code);
      writeFileSync(join(dir, 'quickstart.mjs'), code);
      const env = { ...process.env, OPENTILL_URL: `${t.url}/sandbox`, OPENTILL_CREDENTIAL: credential };
      const first = await run(process.execPath, ['quickstart.mjs'], { cwd: dir, env });
      const lines = first.stdout.trim().split('\n');
      const [bob] = (await t.services.transactions.listByEmail(
        { vendorId: (await t.services.catalog.listVendors())[0]!.id, environment: 'sandbox' },
        'bob@example.com',
      )) as Array<{ id: string; productName: string; status: string }>;
      assert.equal(lines[0], `${bob!.id} ${bob!.productName} ${bob!.status}`);
      const changes = lines.slice(1);
      assert.ok(changes.length >= 4, first.stdout);
      for (const line of changes) assert.match(line, /^CHANGED_STATUS_(NEW|TRIAL|VAULTED_ACTIVATION) TC-TR_\w+$/);

      const second = await run(process.execPath, ['quickstart.mjs'], { cwd: dir, env });
      assert.deepEqual(
        second.stdout.trim().split('\n'),
        [lines[0]],
        'every change was marked processed by the first run',
      );
    });
  });
}
