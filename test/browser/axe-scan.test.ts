import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { seriousViolations } from '../../support/chromium.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The scan every page test relies on (support/chromium.ts): it must find what axe-core finds in the
 * page and inside its frames, same-origin or not, and leave out only the frames it is told to. A scan
 * that found nothing would pass every page test.
 */
let server: Server;
let browser: Browser;
let url: string;
before(async () => {
  server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    const { port } = server.address() as AddressInfo;
    if (request.url === '/frame')
      return response.end('<!doctype html><html lang="en"><title>Frame</title><body><button></button></body></html>');
    response.end(
      '<!doctype html><html lang="en"><title>Page</title><body><main><h1>Page</h1><img src="/a.png">' +
        '<iframe title="ours" src="/frame"></iframe>' +
        `<iframe title="theirs" id="processor" src="http://localhost:${port}/frame"></iframe></main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await sharedChromium();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the axe scan finds serious findings in the page and in its same- and cross-origin frames, and leaves out excluded frames', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    assert.deepEqual(await seriousViolations(page), [
      'button-name (critical): iframe[title="ours"] button, #processor button',
      'image-alt (critical): img',
    ]);
    assert.deepEqual(await seriousViolations(page, { exclude: ['#processor'] }), [
      'button-name (critical): iframe[title="ours"] button',
      'image-alt (critical): img',
    ]);
  } finally {
    await page.close();
  }
});
