import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Scope } from '../../src/domain/model.ts';
import { ARTIFACTS, freePort, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { signedUpInBrowser } from '../helpers/panel-world.ts';
import { pngImage } from '../helpers/product-image-bytes.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The product form in Chromium (docs/decisions.md §42): a vendor types a description and uploads an
 * image through the page's script, then archives; the checkout shows the image beside the name and the
 * description under it, left to right and in Arabic right to left. Axe-clean at desktop and phone
 * size; screenshots go to test-artifacts/product-form-*.png.
 */
describe('the panel product form and its checkout, in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let scope: Scope;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}`, PANEL_SIGNUP: 'open' } });
    browser = await sharedChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) =>
    screenshot(page, `${ARTIFACTS}product-form-${name}.png`, { fullPage: true });

  test('a product created with a description, given an image by the upload, then shown in the form', async () => {
    const context = await browser.newContext({ viewport: SCREEN_SIZES[0][1], locale: 'en-US' });
    const page = await context.newPage();
    scope = await signedUpInBrowser(page, t.url, 'maker@form.test');
    await page.goto(`${t.url}/panel/products?env=sandbox`);
    await page.fill('#name', 'Pixel Studio Pro');
    await page.fill('#description', 'Edit photos in the browser.\nIncludes 50 filters and free updates for a year.');
    await page.fill('#prices', 'USD 49.00');
    await page.click('text=Create the product');
    await page.locator('text=The product is created.').waitFor();
    productId = (await t.services.catalog.listProducts(scope))[0]!.id;

    await page.click(`[data-id="${productId}"] [data-testid="product-image"] summary`);
    await page.setInputFiles(`#image-${productId}`, {
      name: 'cover.png',
      mimeType: 'image/png',
      buffer: pngImage(160, 160, [37, 80, 200]),
    });
    await page.locator('text=The product image is saved.').waitFor();
    assert.ok((await t.services.catalog.readProduct(scope, productId)).imageVersion);

    await page.click(`[data-id="${productId}"] [data-testid="product-image"] summary`);
    await page.setInputFiles(`#image-${productId}`, {
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('not an image'),
    });
    // The script's own check (the server checks again from the bytes).
    await page.locator('text=The image must be a PNG, JPEG or WebP; notes.txt is not one.').waitFor();
    await context.close();
  });

  for (const [size, viewport] of SCREEN_SIZES) {
    test(`the Products page with the form's parts open is axe-clean (${size})`, async () => {
      const context = await browser.newContext({ viewport, locale: 'en-US' });
      const page = await context.newPage();
      const { cookie } = await t.services.panel.signIn({
        email: 'maker@form.test',
        password: 'a long enough passphrase',
      });
      await context.addCookies([{ name: 'ot_panel', value: cookie, url: t.url }]);
      await page.goto(`${t.url}/panel/products?env=sandbox`);
      for (const part of ['product-image', 'archive'])
        await page.click(`[data-id="${productId}"] [data-testid="${part}"] summary`);
      await page.click(`[data-id="${productId}"] details:has(summary:text-is("Edit")) summary`);
      assert.equal(await page.locator(`img.product-image-now[alt="Pixel Studio Pro"]`).count(), 1);
      assert.deepEqual(await seriousViolations(page), []);
      await shot(page, `panel-${size}`);
      await context.close();
    });

    test(`the checkout shows the image beside the name and the description under it (${size})`, async () => {
      const context = await browser.newContext({ viewport, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(`${t.url}/sandbox/payment/product/${productId}`);
      const image = page.locator('img[data-testid="product-image"]');
      assert.equal(await image.getAttribute('alt'), 'Pixel Studio Pro');
      assert.ok(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 160), 'loaded');
      assert.equal(
        await page.locator('[data-testid="product-description"]').innerText(),
        'Edit photos in the browser.\nIncludes 50 filters and free updates for a year.',
      );
      const [imageBox, nameBox] = [await image.boundingBox(), await page.locator('h1').boundingBox()];
      assert.ok(imageBox!.x + imageBox!.width <= nameBox!.x, 'the image is beside the name, before it');
      assert.deepEqual(await seriousViolations(page), []);
      await shot(page, `checkout-${size}`);
      await context.close();
    });

    test(`in Arabic the image stands at the right, before the name, right to left (${size})`, async () => {
      const context = await browser.newContext({ viewport, locale: 'ar' });
      const page = await context.newPage();
      await page.goto(`${t.url}/sandbox/payment/product/${productId}?locale=ar`);
      assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
      const [imageBox, nameBox] = [
        await page.locator('img[data-testid="product-image"]').boundingBox(),
        await page.locator('h1').boundingBox(),
      ];
      assert.ok(imageBox!.x >= nameBox!.x + nameBox!.width, 'the image is at the right of the name');
      assert.deepEqual(await seriousViolations(page), []);
      await shot(page, `checkout-ar-${size}`);
      await context.close();
    });
  }

  test('archived, the checkout says the product is no longer sold', async () => {
    const context = await browser.newContext({ viewport: SCREEN_SIZES[1][1], locale: 'en-US' });
    const page = await context.newPage();
    const { cookie } = await t.services.panel.signIn({
      email: 'maker@form.test',
      password: 'a long enough passphrase',
    });
    await context.addCookies([{ name: 'ot_panel', value: cookie, url: t.url }]);
    await page.goto(`${t.url}/panel/products?env=sandbox`);
    await page.click(`[data-id="${productId}"] [data-testid="archive"] summary`);
    await page.check(`[data-id="${productId}"] [data-testid="archive"] input[name="confirm"]`);
    await page.click('text=Archive the product');
    await page.locator('text=The product is archived').waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'panel-archived-phone');
    const res = await page.goto(`${t.url}/sandbox/payment/product/${productId}`);
    assert.equal(res!.status(), 403);
    assert.match(await page.locator('main').innerText(), /no longer sells this product/);
    await context.close();
  });
});
