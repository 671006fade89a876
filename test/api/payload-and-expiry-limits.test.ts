import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { storeKinds, useTestApp, type ApiResponse, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Limits counted as a person counts (docs/decisions.md §2): a payload has fewer than 5000 characters,
 * an emoji being one; a customized product's link lives at least one second.
 */
const clock = fixedClock(new Date('2030-07-01T10:00:00.000Z'));
const PRICES = [{ currency: 'USD', value: 15 }];

function assertError(res: ApiResponse, status: number, error: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.error, error, res.text);
}

for (const kind of await storeKinds()) {
  describe(`payload length in characters (${kind})`, () => {
    let v: TestVendor;
    useTestApp(kind, { clock }, (_app, vendor) => (v = vendor));

    test('a payload of 4999 emoji (9998 UTF-16 units) is kept; 5000 emoji are 400 PAYLOAD_TOO_LONG and nothing changes', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id, { payload: 'before' });
      const longest = '😀'.repeat(4999);
      const kept = await v.api(`/v1/transaction/${id}`, { body: { payload: longest } });
      assert.equal(kept.status, 200, kept.text);
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, longest);

      const tooLong = await v.api(`/v1/transaction/${id}`, { body: { payload: '😀'.repeat(5000) } });
      assertError(tooLong, 400, 'PAYLOAD_TOO_LONG');
      assert.equal(tooLong.json.message, 'payload has 5000 characters; it must have fewer than 5000.');
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, longest);
    });

    test('customize-product counts the payload the same way', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const ok = await v.api(`/v1/customize-product/${product.id}`, {
        body: { prices: PRICES, payload: '😀'.repeat(4999) },
      });
      assert.equal(ok.status, 200, ok.text);
      assertError(
        await v.api(`/v1/customize-product/${product.id}`, { body: { prices: PRICES, payload: '😀'.repeat(5000) } }),
        400,
        'PAYLOAD_TOO_LONG',
      );
    });
  });

  describe(`customize-product expiresIn (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));
    const open = (link: string) => fetch(`${t.url}${link.slice('http://opentill.test'.length)}`);

    test('under one second (1e-9, which rounds to 0 ms, or 0.999) is 400 INVALID_INPUT: the link would already be expired', async () => {
      const product = await v.product({ type: 'ONETIME' });
      for (const expiresIn of [1e-9, 0.0004, 0.5, 0.999]) {
        const res = await v.api(`/v1/customize-product/${product.id}`, { body: { prices: PRICES, expiresIn } });
        assertError(res, 400, 'INVALID_INPUT');
        assert.match(res.json.message, /expiresIn must be a number of seconds from 1 .*already expired/, res.text);
      }
    });

    test('one second is the shortest: its link opens until that second has passed', async () => {
      const product = await v.product({ type: 'ONETIME' });
      const res = await v.api(`/v1/customize-product/${product.id}`, { body: { prices: PRICES, expiresIn: 1 } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await open(res.json.link)).status, 200);
      clock.advance(1_000);
      assert.equal((await open(res.json.link)).status, 410);
    });
  });
}
