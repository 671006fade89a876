/**
 * `npm run bench:widget`: how long a customer waits for a price. Headless Chromium opens a vendor
 * page (its own origin) that includes the sandbox client script and one price element, RUNS times;
 * each run measures, from the start of navigation, when DOMContentLoaded fired and when the price
 * text appeared. The same page without the script is the baseline (its DOMContentLoaded).
 * Everything runs on 127.0.0.1.
 *
 * Environment:
 *   BENCH_RUNS=30     page loads per side (after 3 warm-up loads)
 *   BENCH_SMOKE=1     2 loads per side, for `npm test` (test/bench/bench-smoke.test.ts)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium.ts';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { createServices } from '../src/services.ts';
import { setting } from './settings.ts';

const RUNS = setting('BENCH_RUNS', 30, 2);
const dir = mkdtempSync(join(tmpdir(), 'opentill-widget-bench-'));
const config = loadConfig({
  OPENTILL_SECRET: 'widget-bench-secret-0123456789-0123456789',
  OPENTILL_DATA_DIR: dir,
  LOG_LEVEL: 'silent',
  SQLITE_FILE: join(dir, 'bench.db'),
});
const services = createServices(config);
await services.maintenance.migrate();
const app = await buildApp(services, { logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const vendor = await services.catalog.createVendor({ name: 'Bench', email: 'bench@example.com' });
const product = await services.catalog.createProduct(
  { vendorId: vendor.id, environment: 'sandbox' },
  {
    name: 'Pro',
    type: 'ONETIME',
    prices: [
      { currency: 'USD', value: 20 },
      { currency: 'EUR', value: 18.5 },
    ],
  },
);

const page = (withScript: boolean) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>${withScript ? `<script src="${api}/latest/widget.sandbox.min.js" data-ts-country="DE"></script>` : ''}</head>` +
  `<body><h1>Pro</h1><span id="price" data-ts-price data-ts-product="${product.id}">…</span></body></html>`;
const site = createServer((req, res) =>
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(page(req.url !== '/plain')),
);
await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;

const browser = await launchChromium({ optimize: true });
const context = await browser.newContext();
// Notes the moment the price text appears, relative to the start of navigation.
await context.addInitScript(() => {
  new MutationObserver((_m, observer) => {
    const el = document.getElementById('price');
    if (el && el.dataset.tsTaxRate !== undefined) {
      (window as any).__priceShownAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
});

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const measure = async (path: string, withPrice: boolean) => {
  const dcl: number[] = [];
  const shown: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const tab = await context.newPage();
    await tab.goto(`${siteUrl}${path}`);
    if (withPrice) await tab.waitForFunction(() => (window as any).__priceShownAt !== undefined);
    const timing = await tab.evaluate(() => ({
      dcl: performance.getEntriesByType('navigation')[0]
        ? (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd
        : 0,
      shown: (window as any).__priceShownAt as number | undefined,
    }));
    await tab.close();
    if (i < 3) continue; // warm-up: first loads compile the script and open connections
    dcl.push(timing.dcl);
    if (timing.shown !== undefined) shown.push(timing.shown);
  }
  return { dcl, shown };
};

const baseline = await measure('/plain', false);
const withWidget = await measure('/', true);
const ms = (n: number) => `${n.toFixed(1)} ms`;
console.log(`client script bench: ${RUNS} page loads each, headless Chromium, everything on 127.0.0.1`);
console.log(
  `page without the script   DOMContentLoaded  median ${ms(quantile(baseline.dcl, 0.5))}  p95 ${ms(quantile(baseline.dcl, 0.95))}`,
);
console.log(
  `page with the script      DOMContentLoaded  median ${ms(quantile(withWidget.dcl, 0.5))}  p95 ${ms(quantile(withWidget.dcl, 0.95))}`,
);
console.log(
  `                          price shown       median ${ms(quantile(withWidget.shown, 0.5))}  p95 ${ms(quantile(withWidget.shown, 0.95))}`,
);
console.log(
  `price shown / baseline DOMContentLoaded (median): ${(quantile(withWidget.shown, 0.5) / quantile(baseline.dcl, 0.5)).toFixed(2)}x`,
);

await browser.close();
site.close();
await app.close();
await services.close();
rmSync(dir, { recursive: true, force: true });
