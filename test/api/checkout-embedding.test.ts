import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway, FORM_CARD_ENTRY } from '../../src/gateways/sandbox-gateway.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * Who may frame the checkout and who hears from it (docs/decisions.md §14). The client script
 * announces its page's origin; only that origin may frame the checkout (`frame-ancestors`) and the
 * page's messages go to that origin only. Without an announced origin nobody may frame it and it
 * posts nothing. What the browser makes of this is tested in test/browser/checkout-embed.test.ts.
 */
const clock = fixedClock(new Date('2030-09-15T10:00:00.000Z'));
const SHOP = 'https://shop.vendor.example';

for (const kind of await storeKinds()) {
  describe(`embedding the checkout (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let productId: string;
    // The sandbox's gateway, whose charges' answers can be lost on the way back (the money moves).
    let sandbox: PaymentGateway;
    let loseAnswers = false;
    const gateway: PaymentGateway = {
      provider: 'SANDBOX',
      ...FORM_CARD_ENTRY,
      tokenize: (card, now) => sandbox.tokenize(card, now),
      charge: async (request) => {
        const result = await sandbox.charge(request);
        return loseAnswers ? { status: 'UNKNOWN' } : result;
      },
      refund: (request) => sandbox.refund(request),
      lookupCharge: (attemptId) => sandbox.lookupCharge(attemptId),
      lookupRefund: (refundId) => sandbox.lookupRefund(refundId),
    };
    useTestApp(kind, { clock, gateways: { sandbox: gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      sandbox = sandboxGateway(app.services.database.kysely);
    });

    const productOnce = async () =>
      (productId ??= (await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 20 }] }))
        .id);
    const pageOf = async (res: Response) => {
      const html = await res.text();
      const form = hiddenFields(html);
      return {
        status: res.status,
        frameAncestors: /frame-ancestors ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')?.[1],
        script: /<script nonce="[^"]*">([\s\S]*?)<\/script>/.exec(html)?.[1],
        // What the overlay's script (src/http/pages/browser/embed.ts) reads: the origin it posts to and the message.
        embed: embedData(html),
        closeButton: html.includes('id="close"'),
        html,
        form,
      };
    };
    const embedData = (html: string) => {
      const block = /<script type="application\/json" id="opentill-embed">([\s\S]*?)<\/script>/.exec(html)?.[1];
      return block === undefined
        ? undefined
        : (JSON.parse(block) as { origin: string; message: { type: string; transactionId: string } | null });
    };
    const open = async (query: string, id?: string) =>
      pageOf(await fetch(`${t.url}/sandbox/payment/product/${id ?? (await productOnce())}?country=US${query}`));

    test("without an announced origin nobody may frame the checkout, and it posts nothing (a plain payment link, an old script's overlay)", async () => {
      for (const query of ['', '&embedded=1']) {
        const page = await open(query);
        assert.equal(page.status, 200);
        assert.equal(page.frameAncestors, "'none'", query);
        assert.equal(page.script, undefined, query);
        assert.equal(page.embed, undefined, query);
        assert.equal(page.closeButton, false, query);
      }
    });

    test('with an announced origin only that origin may frame it, and its messages go to that origin, never to "*"', async () => {
      const page = await open(`&embedded=1&origin=${encodeURIComponent(SHOP)}`);
      assert.equal(page.status, 200);
      assert.equal(page.frameAncestors, SHOP);
      assert.equal(page.closeButton, true);
      assert.deepEqual(page.embed, { origin: SHOP, message: null });
      assert.match(page.script!, /postMessage\(/);
      assert.doesNotMatch(page.script!, /'\*'|"\*"/);
      assert.match(page.script!, /\{type:"ready"\}/);

      const notEmbedded = await open(`&origin=${encodeURIComponent(SHOP)}`);
      assert.deepEqual(
        [notEmbedded.frameAncestors, notEmbedded.script, notEmbedded.embed, notEmbedded.closeButton],
        [SHOP, undefined, undefined, false],
        'no overlay, no messages',
      );
    });

    test('the announced origin is written canonically; anything but an http(s) origin counts as none', async () => {
      const canonical = await open(`&embedded=1&origin=${encodeURIComponent('HTTPS://Shop.Vendor.Example:443/')}`);
      assert.equal(canonical.frameAncestors, SHOP);
      assert.equal(
        (await open(`&embedded=1&origin=${encodeURIComponent('http://localhost:8080')}`)).frameAncestors,
        'http://localhost:8080',
      );
      for (const bad of [
        'null',
        'javascript:alert(1)',
        'ftp://shop.vendor.example',
        'https://shop.vendor.example/path',
        'https://user:pw@shop.vendor.example',
        "https://shop.vendor.example; script-src 'unsafe-inline'",
        'https://shop.vendor.example https://evil.example',
        '*',
        '</script><script>alert(1)</script>',
      ]) {
        const page = await open(`&embedded=1&origin=${encodeURIComponent(bad)}`);
        assert.equal(page.status, 200, bad);
        assert.equal(page.frameAncestors, "'none'", bad);
        assert.equal(page.script, undefined, bad);
        assert.equal(page.embed, undefined, bad);
      }
    });

    test('the form keeps the announced origin, and the receipt tells only that origin the transaction id', async () => {
      const query = `&embedded=1&origin=${encodeURIComponent(SHOP)}`;
      const page = await open(query);
      const res = await fetch(`${t.url}/sandbox/payment/product/${productId}?country=US${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...page.form,
          country: 'US',
          email: 'embedded@example.com',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      const receipt = await pageOf(res);
      assert.equal(receipt.status, 200, receipt.html);
      const transactionId = /data-testid="transaction-id">([^<]+)</.exec(receipt.html)![1]!;
      assert.equal(receipt.frameAncestors, SHOP);
      assert.ok(receipt.script);
      assert.deepEqual(receipt.embed, {
        origin: SHOP,
        message: { type: 'paid', transactionId, status: 'ONE_TIME_PAYMENT_STATUS_PAID' },
      });

      // The same payment through a plain link: a receipt nobody may frame, and no message.
      const plain = await open('');
      const plainReceipt = await pageOf(
        await fetch(`${t.url}/sandbox/payment/product/${productId}?country=US&embedded=1`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...plain.form,
            country: 'US',
            email: 'plain@example.com',
            cardNumber: '4242424242424242',
            cardExpiry: '12/34',
            cardCvc: '123',
          }),
        }),
      );
      assert.match(plainReceipt.html, /id="receipt"/);
      assert.deepEqual(
        [plainReceipt.frameAncestors, plainReceipt.script, plainReceipt.embed],
        ["'none'", undefined, undefined],
      );
    });

    test('a payment being confirmed keeps the announced origin: the confirmation page is framed and talks like the form', async () => {
      const query = `&embedded=1&origin=${encodeURIComponent(SHOP)}`;
      const page = await open(query);
      loseAnswers = true;
      const postUrl = `${t.url}/sandbox/payment/product/${productId}?country=US${query}`;
      const pending = await pageOf(
        await fetch(postUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...page.form,
            country: 'US',
            email: 'pending@example.com',
            cardNumber: '4242424242424242',
            cardExpiry: '12/34',
            cardCvc: '123',
          }),
        }),
      );
      loseAnswers = false;
      assert.equal(pending.status, 202, pending.html);
      assert.equal(pending.frameAncestors, SHOP);
      const refresh = /http-equiv="refresh" content="3;url=([^"]+)"/.exec(pending.html)![1]!.replace(/&#38;/g, '&');
      const confirmUrl = new URL(refresh, postUrl);
      assert.deepEqual([confirmUrl.searchParams.get('embedded'), confirmUrl.searchParams.get('origin')], ['1', SHOP]);

      const confirmed = await pageOf(await fetch(confirmUrl));
      assert.equal(confirmed.frameAncestors, SHOP);
      assert.equal(confirmed.status, 200, 'the charge is looked up: the money moved');
      assert.equal(confirmed.embed?.message?.type, 'paid');
    });

    test("the checkout's problem pages are framed as the checkout would be", async () => {
      const missing = 'TC-PR_00000000000000000000000000';
      const announced = await open(`&embedded=1&origin=${encodeURIComponent(SHOP)}`, missing);
      assert.deepEqual([announced.status, announced.frameAncestors], [404, SHOP]);
      const plain = await open('', missing);
      assert.deepEqual([plain.status, plain.frameAncestors], [404, "'none'"]);
    });
  });
}
