import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Product, Scope } from '../../src/domain/model.ts';
import type { FormBrowser } from '../helpers/form-browser.ts';
import { signedUp } from '../helpers/panel-world.ts';
import { jpegHeader, pngHeader, pngImage, webpHeader } from '../helpers/product-image-bytes.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's product form (docs/decisions.md §42): a description the checkout shows as plain text,
 * an image read from its bytes and served so that it can only ever be an image, and archive.
 */
for (const kind of await storeKinds()) {
  describe(`the panel's product form (${kind})`, () => {
    let t: TestApp;
    let owner: { b: FormBrowser; scope: Scope };
    let stranger: { b: FormBrowser; scope: Scope };
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
      owner = await signedUp(t, 'owner@images.test', 'Image Co');
      stranger = await signedUp(t, 'stranger@images.test', 'Stranger Co');
    });
    after(() => t.close());

    const newProduct = (scope: Scope, name = 'Photo Pack') =>
      t.services.catalog.createProduct(scope, { name, type: 'ONETIME', prices: [{ currency: 'USD', value: 12 }] });
    const checkout = async (id: string, prefix = '/sandbox') => {
      const res = await fetch(`${t.url}${prefix}/payment/product/${id}`);
      return { status: res.status, html: await res.text() };
    };
    /** Sends an image as the Products page's script does: the session's cookie and the page's token. */
    async function upload(
      who: { b: FormBrowser },
      id: string,
      body: Buffer | string,
      type = 'image/png',
      token?: string,
    ) {
      const page = await who.b.get('/panel/products?env=sandbox');
      const csrf = token ?? /name="csrf" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const cookie = [...who.b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(`${t.url}/panel/products/image?env=sandbox&id=${encodeURIComponent(id)}`, {
        method: 'POST',
        headers: { 'content-type': type, 'x-csrf-token': csrf, cookie },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
      return { status: res.status, text: await res.text() };
    }
    const imageOf = async (p: Product) =>
      (await t.services.catalog.readProduct(owner.scope, p.id)).imageVersion ?? null;
    const imageUrl = (p: Product, version: string, prefix = '/sandbox') =>
      `${t.url}${prefix}/payment/product/${p.id}/image/${version}`;

    test('a description typed in the form is shown on the checkout under the name, as text with its line breaks', async () => {
      await owner.b.get('/panel/products?env=sandbox');
      const created = await owner.b.post('/panel/products?env=sandbox', {
        name: 'Described',
        description: 'Two lines:\n<script>alert(1)</script> & "quotes"',
        type: 'ONETIME',
        prices: 'USD 9.00',
      });
      assert.equal(created.status, 303, created.html);
      const product = (await t.services.catalog.listProducts(owner.scope)).find((p) => p.name === 'Described')!;
      assert.equal(product.description, 'Two lines:\n<script>alert(1)</script> & "quotes"');
      const page = await checkout(product.id);
      assert.equal(page.status, 200);
      assert.ok(
        page.html.includes(
          '<p class="muted product-description" data-testid="product-description"><bdi>Two lines:\n&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;</bdi></p>',
        ),
        'escaped, with its line break kept',
      );
      assert.doesNotMatch(page.html, /<script>alert/);
      assert.match(page.html, /\.product-description\{white-space:pre-line/);

      const form = await owner.b.get('/panel/products?env=sandbox');
      assert.match(
        form.html,
        new RegExp(`<textarea id="description-${product.id}" name="description"[^>]*maxlength="5000">Two lines:`),
      );
      const edited = await owner.b.post('/panel/products/edit?env=sandbox', {
        id: product.id,
        name: 'Described',
        description: '',
        prices: 'USD 9.00',
      });
      assert.equal(edited.status, 303, edited.html);
      assert.doesNotMatch((await checkout(product.id)).html, /product-description"/);

      await owner.b.get('/panel/products?env=sandbox');
      const tooLong = await owner.b.post('/panel/products/edit?env=sandbox', {
        id: product.id,
        name: 'Described',
        description: 'x'.repeat(5001),
        prices: 'USD 9.00',
      });
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.html, /at most 5000 characters/);
    });

    test('a PNG, a JPEG and a WebP are kept as the type their bytes are, whatever they were sent as, and served only as that', async () => {
      const product = await newProduct(owner.scope);
      const panel = await owner.b.get('/panel/products?env=sandbox');
      const csrf = /name="csrf" value="([^"]+)"/.exec(panel.html)![1]!;
      assert.ok(
        panel.html.includes(
          `data-image-upload data-url="/panel/products/image?env=sandbox&#38;id=${product.id}" data-csrf="${csrf}" data-csrf-header="x-csrf-token" data-types="image/png,image/jpeg,image/webp" data-max-bytes="1048576"`,
        ),
        'the page script sends where the server takes it, with the session token',
      );
      const cases: [string, Buffer, string][] = [
        ['image/png', pngImage(8, 6), 'image/png'],
        ['image/jpeg', jpegHeader(640, 480), 'image/jpeg'],
        ['image/webp', webpHeader(300, 200), 'image/webp'],
        // Mislabelled: what counts is the bytes.
        ['image/jpeg', pngImage(3, 3), 'image/png'],
      ];
      for (const [sentAs, bytes, servedAs] of cases) {
        const res = await upload(owner, product.id, bytes, sentAs);
        assert.equal(res.status, 204, res.text);
        const version = (await imageOf(product))!;
        assert.match(version, /^[0-9a-f]{16}$/);
        const served = await fetch(imageUrl(product, version));
        assert.equal(served.status, 200);
        assert.equal(served.headers.get('content-type'), servedAs, `${sentAs} → ${servedAs}`);
        assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(served.headers.get('content-security-policy'), "default-src 'none'; sandbox");
        assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
      }
      const page = await checkout(product.id);
      const version = (await imageOf(product))!;
      assert.ok(
        page.html.includes(
          `<img src="/sandbox/payment/product/${product.id}/image/${version}" alt="Photo Pack" data-testid="product-image">`,
        ),
      );
    });

    test('the same image sent twice keeps one version; a new image has a new URL and the old one is gone', async () => {
      const product = await newProduct(owner.scope);
      assert.equal((await upload(owner, product.id, pngImage(4, 4))).status, 204);
      const first = (await imageOf(product))!;
      assert.equal((await upload(owner, product.id, pngImage(4, 4))).status, 204);
      assert.equal(await imageOf(product), first, 'a retry changes nothing');
      assert.equal((await upload(owner, product.id, pngImage(5, 4))).status, 204);
      const second = (await imageOf(product))!;
      assert.notEqual(second, first);
      assert.equal((await fetch(imageUrl(product, first))).status, 404);
      assert.equal((await fetch(imageUrl(product, second))).status, 200);
    });

    test('refused, and nothing changes: not an image, a GIF or SVG called a PNG, too large, too many pixels, empty, another type', async () => {
      const product = await newProduct(owner.scope);
      assert.equal((await upload(owner, product.id, pngImage(2, 2))).status, 204);
      const kept = (await imageOf(product))!;
      const cases: [string, Buffer | string, string, number, RegExp][] = [
        ['text', 'not an image at all', 'image/png', 400, /must be a PNG, JPEG or WebP/],
        ['a GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;'), 'image/png', 400, /must be a PNG, JPEG or WebP/],
        [
          'an SVG',
          '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
          'image/webp',
          400,
          /PNG, JPEG or WebP/,
        ],
        ['a PNG signature only', pngImage(1, 1).subarray(0, 12), 'image/png', 400, /PNG, JPEG or WebP/],
        [
          'a JPEG without a frame',
          Buffer.from([0xff, 0xd8, 0xff, 0xd9, 0, 0, 0, 0, 0, 0, 0]),
          'image/jpeg',
          400,
          /PNG, JPEG or WebP/,
        ],
        ['over 1 MB', Buffer.concat([pngImage(2, 2), Buffer.alloc(1024 * 1024)]), 'image/png', 413, /1 MB at most/],
        [
          '4097 pixels wide',
          pngHeader(4097, 10),
          'image/png',
          400,
          /at most 4096 pixels wide and high; this one is 4097×10/,
        ],
        ['4097 pixels high', jpegHeader(10, 4097), 'image/jpeg', 400, /4096 pixels/],
        ['0 pixels wide', webpHeader(1, 1).fill(0, 24, 30).fill(0xff, 24, 27), 'image/webp', 400, /4096 pixels/],
        ['empty', Buffer.alloc(0), 'image/png', 400, /empty/],
        ['a form', 'image=x', 'application/x-www-form-urlencoded', 415, /PNG, JPEG or WebP/],
        ['a GIF as a GIF', Buffer.from('GIF89a'), 'image/gif', 415, /PNG, JPEG or WebP/],
      ];
      for (const [what, body, type, status, message] of cases) {
        const res = await upload(owner, product.id, body, type);
        assert.equal(res.status, status, `${what}: ${res.text.slice(0, 300)}`);
        assert.match(res.text, message, what);
        assert.equal(await imageOf(product), kept, what);
      }
      // The largest accepted: exactly 4096 a side, exactly 1 MB.
      const edge = Buffer.concat([pngHeader(4096, 4096), Buffer.alloc(1024 * 1024 - pngHeader(1, 1).length)]);
      assert.equal(edge.length, 1024 * 1024);
      assert.equal((await upload(owner, product.id, edge)).status, 204);
    });

    test('a stranger cannot upload or remove: signed out, without the token, or on another vendor’s product', async () => {
      const product = await newProduct(owner.scope);
      assert.equal((await upload(owner, product.id, pngImage(2, 2))).status, 204);
      const version = (await imageOf(product))!;
      const signedOut = await fetch(`${t.url}/panel/products/image?env=sandbox&id=${product.id}`, {
        method: 'POST',
        headers: { 'content-type': 'image/png' },
        body: new Uint8Array(pngImage(3, 3)),
      });
      assert.equal(signedOut.status, 401);
      assert.equal((await upload(owner, product.id, pngImage(3, 3), 'image/png', 'wrong-token')).status, 403);
      const other = await upload(stranger, product.id, pngImage(3, 3));
      assert.equal(other.status, 404, other.text);
      await stranger.b.get('/panel/products?env=sandbox');
      const removed = await stranger.b.post('/panel/products/image/remove?env=sandbox', { id: product.id });
      assert.equal(removed.status, 400);
      assert.match(removed.html, /not found/i);
      assert.equal(await imageOf(product), version, 'still the owner’s image');
      // Nor in the owner's other environment: the product is a sandbox one.
      const production = await fetch(`${t.url}/panel/products/image?env=production&id=${product.id}`, {
        method: 'POST',
        headers: { 'content-type': 'image/png', cookie: [...owner.b.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: new Uint8Array(pngImage(3, 3)),
      });
      assert.ok([403, 404].includes(production.status), String(production.status));
      assert.equal(await imageOf(product), version);
    });

    test('an image is served for its own product in its own environment only', async () => {
      const mine = await newProduct(owner.scope, 'Mine');
      const theirs = await newProduct(stranger.scope, 'Theirs');
      assert.equal((await upload(owner, mine.id, pngImage(2, 2))).status, 204);
      const version = (await imageOf(mine))!;
      assert.equal((await fetch(imageUrl(mine, version))).status, 200);
      assert.equal((await fetch(imageUrl(theirs, version))).status, 404, "another vendor's product");
      assert.equal((await fetch(imageUrl(mine, version, ''))).status, 404, 'the production path of a sandbox product');
      assert.equal(
        (
          await fetch(
            imageUrl(
              mine,
              version.replace(/^./, (c) => (c === '0' ? '1' : '0')),
            ),
          )
        ).status,
        404,
      );
      assert.doesNotMatch((await checkout(theirs.id)).html, /<img/);
    });

    test('removing the image takes it off the checkout and its URL', async () => {
      const product = await newProduct(owner.scope);
      assert.equal((await upload(owner, product.id, pngImage(2, 2))).status, 204);
      const version = (await imageOf(product))!;
      const panel = await owner.b.get('/panel/products?env=sandbox');
      assert.ok(panel.html.includes(`src="/sandbox/payment/product/${product.id}/image/${version}" alt="Photo Pack"`));
      const removed = await owner.b.post('/panel/products/image/remove?env=sandbox', { id: product.id });
      assert.equal(removed.status, 303);
      assert.match(removed.location ?? '', /done=product-image-removed/);
      assert.equal(await imageOf(product), null);
      // Sent again (a retry, a double click): the same answer, still no image.
      await owner.b.get('/panel/products?env=sandbox');
      const again = await owner.b.post('/panel/products/image/remove?env=sandbox', { id: product.id });
      assert.equal(again.status, 303);
      assert.equal(await imageOf(product), null);
      assert.equal((await fetch(imageUrl(product, version))).status, 404);
      assert.doesNotMatch((await checkout(product.id)).html, /<img/);
    });

    test('twenty uploads at once leave the product naming the one image that is stored', async () => {
      const product = await newProduct(owner.scope);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => upload(owner, product.id, pngImage(i + 1, 1))),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        Array(20).fill(204),
      );
      const version = (await imageOf(product))!;
      const served = await fetch(imageUrl(product, version));
      assert.equal(served.status, 200);
      const stored = await t.services.store.productImages.find('sandbox', product.id, version);
      assert.equal(stored?.version, version);
    });
  });
}
