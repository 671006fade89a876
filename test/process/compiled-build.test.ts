import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { buildWidgets } from '../../src/widget/build.ts';
import { buildPageScripts } from '../../src/http/pages/page-scripts-build.ts';
import { freePort, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * What an install runs (issue 16): `npm ci` builds dist/ (the `prepare` script), and bin/opentill.js
 * runs the compiled JavaScript, loading neither tsx nor esbuild; a build older than any source file
 * is passed over for the sources, so an edit is never shadowed by a stale build.
 */
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const STAMP = join(ROOT, 'dist', '.built');
const RECORDER = join(ROOT, 'support', 'record-imports.mjs');

function buildIsCurrent(): boolean {
  let built: number;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  return readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true }).every(
    (entry) => !entry.isFile() || statSync(join(entry.parentPath, entry.name)).mtimeMs <= built,
  );
}

const loadedBy = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as string[];
const tooling = (urls: string[]) => urls.filter((url) => /\/node_modules\/(tsx|esbuild)\//.test(url));

describe('the compiled build', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'opentill-build-'));
    // CI's `npm ci` has just built; a checkout with newer sources builds here.
    if (!buildIsCurrent()) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const help = (record: string) => {
    const started = performance.now();
    const out = execFileSync(process.execPath, ['--import', RECORDER, 'bin/opentill.js', '--help'], {
      cwd: ROOT,
      env: { ...process.env, RECORD_IMPORTS: record, NODE_OPTIONS: '' },
      encoding: 'utf8',
    });
    return { out, ms: performance.now() - started };
  };

  test('`opentill --help` runs dist/ and loads neither tsx nor esbuild', (tc) => {
    const record = join(dir, 'help.json');
    const { out, ms } = help(record);
    assert.match(out, /^Usage: opentill/m);
    const urls = loadedBy(record);
    assert.ok(
      urls.some((url) => url.endsWith('/dist/cli/main.js')),
      'the compiled CLI ran',
    );
    assert.deepEqual(tooling(urls), []);
    const sources = new URL('../../src/', import.meta.url).href;
    assert.deepEqual(
      urls.filter((url) => url.startsWith(sources)),
      [],
      'no source module was loaded',
    );
    assert.deepEqual(
      urls.filter((url) => url.includes('/node_modules/pdfkit/')),
      [],
      'nor the PDF library, which only the commands that write a PDF load',
    );
    tc.diagnostic(`--help answered in ${ms.toFixed(0)} ms (with the import recorder)`);
  });

  test('`opentill serve` from dist/ serves the client script and the page scripts the build wrote, byte for byte what the sources bundle, without esbuild', async () => {
    const record = join(dir, 'serve.json');
    const server = new ServerProcess(await freePort(), dir, {
      nodeArgs: ['--import', RECORDER],
      env: { RECORD_IMPORTS: record },
    });
    try {
      await within(server.started(), 'the compiled server start');
      const fromSources = await buildWidgets();
      for (const [file, bundle] of Object.entries(fromSources)) {
        const res = await fetch(`${server.url}/latest/${file}`, { headers: { 'accept-encoding': 'identity' } });
        assert.equal(res.status, 200);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), bundle.code, file);
        assert.equal(res.headers.get('etag'), bundle.etag);
        // The gzipped copy, as most browsers get it (fetch decodes it): the same bytes, its own tag.
        const gzipped = await fetch(`${server.url}/latest/${file}`, { headers: { 'accept-encoding': 'gzip' } });
        assert.equal(gzipped.headers.get('content-encoding'), 'gzip');
        assert.deepEqual(Buffer.from(await gzipped.arrayBuffer()), bundle.code, file);
        assert.equal(gzipped.headers.get('etag'), bundle.gzipEtag);
      }
      // The pages' browser scripts too: the checkout form's, as checkout.js, is the bundle the build wrote.
      const checkoutJs = await fetch(`${server.url}/payment/checkout.js`);
      assert.equal(checkoutJs.status, 200);
      assert.equal(await checkoutJs.text(), (await buildPageScripts())['checkout-form']);
      server.signal('SIGTERM');
      await within(server.exited, 'the server stop');
    } finally {
      await server.kill();
    }
    const urls = loadedBy(record);
    assert.ok(
      urls.some((url) => url.endsWith('/dist/server.js')),
      'the compiled server ran',
    );
    assert.deepEqual(tooling(urls), []);
  });

  test('a build older than a source file is passed over: the sources run through tsx', () => {
    const { atime, mtime } = statSync(STAMP);
    utimesSync(STAMP, atime, new Date(Date.now() - 365 * 86_400_000));
    try {
      const record = join(dir, 'stale.json');
      assert.match(help(record).out, /^Usage: opentill/m);
      const urls = loadedBy(record);
      assert.ok(
        urls.some((url) => url.endsWith('/src/cli/main.ts')),
        'the sources ran',
      );
      assert.ok(tooling(urls).length > 0, 'through tsx');
    } finally {
      utimesSync(STAMP, atime, mtime);
    }
  });
});
