import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PASSWORD = 'a long enough password';

/**
 * The logo upload of the panel's Settings page (issue 14): a page form takes 64 KB at most, so the
 * logo (up to 100 KB) goes raw to its own route, with the session's anti-forgery token in a header.
 */
for (const kind of await storeKinds()) {
  describe(`panel logo upload (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(
      kind,
      { clock: fixedClock(new Date('2030-03-05T09:00:00.000Z')) },
      (app, vendor) => ((t = app), (v = vendor)),
      'Logo Co',
    );

    /** The test vendor signed in to the panel (through an invitation), with the Settings page's token. */
    async function signedIn() {
      const { token } = await t.services.panelInvites.issue(v.vendor.id);
      const set = await fetch(`${t.url}/panel/invite/${token}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: PASSWORD }),
      });
      assert.equal(set.status, 303);
      const { cookie } = await t.services.panel.signIn({ email: v.vendor.email, password: PASSWORD });
      const headers = { cookie: `ot_panel=${cookie}` };
      const page = await (await fetch(`${t.url}/panel/settings?env=sandbox`, { headers })).text();
      const csrf = /id="logo-upload"[^>]*data-csrf="([^"]+)"/.exec(page)?.[1];
      assert.ok(csrf, 'the upload carries the session token');
      return { headers, csrf, page };
    }
    const upload = (headers: Record<string, string>, body: Buffer | string, type = 'image/png') =>
      fetch(`${t.url}/panel/settings/logo?env=sandbox`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': type, ...headers },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });

    test('without JavaScript the page says so; a PNG is saved, shown on the page and given to the invoice', async () => {
      const { headers, csrf, page } = await signedIn();
      assert.match(
        page,
        /<noscript><p[^>]*>Uploading a logo needs JavaScript here, or use <code>opentill vendor settings --logo FILE<\/code>/,
      );
      assert.match(page, /<input id="logo-file" type="file" accept="image\/png,image\/jpeg">/);
      assert.doesNotMatch(page, /alt="Your logo"/);

      const saved = await upload({ ...headers, 'x-csrf-token': csrf }, PNG);
      assert.equal(saved.status, 204, await saved.text());
      const logo = `data:image/png;base64,${PNG.toString('base64')}`;
      const after = await (await fetch(`${t.url}/panel/settings?env=sandbox&done=settings`, { headers })).text();
      assert.ok(after.includes(`<img class="logo-now" src="${logo}" alt="Your logo"`), 'the page shows the logo');
      assert.match(after, /The settings are saved/);

      const product = await v.product({
        type: 'ONETIME',
        name: 'Pro licence',
        prices: [{ currency: 'USD', value: 12 }],
      });
      const id = await v.buy(product.id, { email: 'buyer@example.com', country: 'US' } as never);
      const hash = (await t.services.store.entries.listForTransaction(id))[0]!.hashId;
      assert.equal((await t.services.invoices.find('sandbox', hash)).seller.logo, logo);
      const pdf = await fetch(`${t.url}/sandbox/invoice/${hash}`);
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    });

    test('refused: no or a wrong token (403), another type (415), not an image (400), over 100 KB (413), signed out (401); nothing changes', async () => {
      await t.services.catalog.updateVendorSettings(v.vendor.id, { logo: null });
      const { headers, csrf } = await signedIn();
      const cases: [string, Promise<Response>, number, RegExp][] = [
        ['no token', upload(headers, PNG), 403, /expired/],
        ['a wrong token', upload({ ...headers, 'x-csrf-token': `${csrf.slice(1)}x` }, PNG), 403, /expired/],
        [
          'a GIF',
          upload({ ...headers, 'x-csrf-token': csrf }, Buffer.from('GIF89a\x01\x00\x01\x00'), 'image/gif'),
          415,
          /PNG or JPEG/,
        ],
        [
          'a form',
          upload({ ...headers, 'x-csrf-token': csrf }, 'logo=x', 'application/x-www-form-urlencoded'),
          415,
          /PNG or JPEG/,
        ],
        [
          'text called a PNG',
          upload({ ...headers, 'x-csrf-token': csrf }, Buffer.from('not an image at all')),
          400,
          /must be a PNG or JPEG image/,
        ],
        [
          'too large',
          upload({ ...headers, 'x-csrf-token': csrf }, Buffer.concat([PNG, Buffer.alloc(100 * 1024)])),
          413,
          /100 KB at most/,
        ],
        ['signed out', upload({ 'x-csrf-token': csrf }, PNG), 401, /Sign in/],
      ];
      for (const [what, answer, status, message] of cases) {
        const res = await answer;
        const text = await res.text();
        assert.equal(res.status, status, `${what}: ${text.slice(0, 300)}`);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/, what);
        assert.match(text, message, what);
      }
      assert.equal((await t.services.catalog.requireVendor(v.vendor.id)).logo ?? null, null);
      // Exactly 100 KB is accepted.
      const largest = Buffer.concat([PNG, Buffer.alloc(100 * 1024 - PNG.length)]);
      assert.equal((await upload({ ...headers, 'x-csrf-token': csrf }, largest)).status, 204);
    });
  });
}
