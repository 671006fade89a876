import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

/**
 * What a server loads before its first request (issue 38, memory): pdfkit and its fonts, 12 MB of heap,
 * wait for the first invoice or statement asked for (src/http/invoice-routes.ts,
 * src/http/pages/statement-downloads.ts). A process that imports the app and lists the CommonJS
 * modules it loaded (pdfkit is one) must not find them among them.
 */
const run = promisify(execFile);

test('importing the app loads no PDF library: pdfkit and fontkit wait for the first document', async () => {
  const script = `
    await import('./src/http/app.ts');
    const { createRequire } = await import('node:module');
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify({ count: loaded.length, pdf: loaded.filter((f) => /[\\\\/]node_modules[\\\\/](pdfkit|fontkit)[\\\\/]/.test(f)) }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url),
  });
  const { count, pdf } = JSON.parse(stdout.trim().split('\n').pop()!) as { count: number; pdf: string[] };
  assert.ok(count > 50, `the app's CommonJS modules are listed (${count})`);
  assert.deepEqual(pdf, []);
});
