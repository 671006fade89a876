import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { hiddenFields } from '../../support/checkout-form.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A checkout form's token is bound to the product, price, vendor and environment it was first used
 * for (issue 32; docs/decisions.md §14, "Form tokens"). Sent with another form it is refused with
 * 409 `IDEMPOTENCY_CONFLICT`: another payment's receipt is never shown as this product's, and the page
 * embedding the checkout is never told "paid" for it.
 */
const clock = fixedClock(new Date('2030-06-01T09:00:00.000Z'));
const SHOP = 'https://shop.vendor.example';
const EMBEDDED = `country=US&embedded=1&origin=${encodeURIComponent(SHOP)}`;
const CARD = { cardNumber: '4242424242424242', cardExpiry: '12/34', cardCvc: '123' };
const DECLINED_CARD = { ...CARD, cardNumber: '4000000000000002' };

interface Page {
  status: number;
  html: string;
  form: Record<string, string>;
  /** What the page's embed script tells the embedding page: its data block (origin, message), as JSON text. */
  script: string;
}
const pageOf = async (res: Response): Promise<Page> => {
  const html = await res.text();
  return {
    status: res.status,
    html,
    form: hiddenFields(html),
    script: /<script type="application\/json" id="opentill-embed">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '',
  };
};
const alertOf = (html: string) => /role="alert" id="error">([^<]*)/.exec(html)?.[1];

for (const kind of await storeKinds()) {
  describe(`checkout form tokens, on opentill's own card form (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let ids: Record<'cheap' | 'dear' | 'foreign' | 'live', string>;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor('Acme');
      const other = await t.newVendor('Other Seller');
      const onetime = (value: number) => ({
        type: 'ONETIME',
        name: `Acme ${value}`,
        prices: [{ currency: 'USD', value }],
      });
      ids = {
        cheap: (await v.product(onetime(1))).id,
        dear: (await v.product(onetime(49))).id,
        foreign: (await other.product(onetime(1))).id,
        live: (await v.product(onetime(1), 'production')).id,
      };
    });
    after(() => t?.close());

    const base = (id: string, environment = 'sandbox') =>
      `${t.url}${environment === 'sandbox' ? '/sandbox' : ''}/payment/product/${id}`;
    const open = async (id: string, environment = 'sandbox') =>
      pageOf(await fetch(`${base(id, environment)}?${EMBEDDED}`));
    const pay = async (id: string, fields: Record<string, string>, environment = 'sandbox') =>
      pageOf(
        await fetch(`${base(id, environment)}?${EMBEDDED}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ country: 'US', ...fields }),
        }),
      );
    const purchasesOf = async (email: string) =>
      (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as { productId: string }[];
    /** A refusal of another form's token: 409, the form again with why, no receipt, and nothing told to the embedding page but "ready". */
    const assertRefused = (page: Page, label: string) => {
      assert.equal(page.status, 409, `${label}: ${alertOf(page.html)}`);
      assert.match(alertOf(page.html) ?? '', /already used for another payment/, label);
      assert.doesNotMatch(page.html, /id="receipt"/, label);
      assert.doesNotMatch(page.script, /"type":"paid"/, label);
      assert.match(page.script, /"message":null/, `${label}: still the embedded form, which says only "ready"`);
    };
    /** The 1 USD product paid through its form; the form's token. */
    async function paidCheap(email: string) {
      const form = (await open(ids.cheap)).form;
      const paid = await pay(ids.cheap, { ...form, email, ...CARD });
      assert.equal(paid.status, 200, alertOf(paid.html));
      assert.match(paid.script, /"type":"paid"/);
      return form.token!;
    }

    test('the token of a 1 USD purchase sent with the 49 USD product\'s form is refused: no receipt, no "paid" to the embedding page, nothing charged', async () => {
      const token = await paidCheap('swap@example.com');
      const dear = await open(ids.dear);
      assertRefused(await pay(ids.dear, { ...dear.form, token, email: 'swap@example.com', ...CARD }), 'the form');
      const confirm = await pageOf(await fetch(`${base(ids.dear)}/confirm/${token}?${EMBEDDED}`));
      assert.equal(confirm.status, 404, 'its confirmation page under the 49 USD product');
      assert.doesNotMatch(confirm.script, /"type":"paid"/);
      assert.deepEqual(
        (await purchasesOf('swap@example.com')).map((p) => p.productId),
        [ids.cheap],
      );
      // The 1 USD product's own confirmation page still shows its receipt.
      const own = await pageOf(await fetch(`${base(ids.cheap)}/confirm/${token}?${EMBEDDED}`));
      assert.equal(own.status, 200);
      assert.match(own.script, /"type":"paid"/);
    });

    test("the 49 USD product's own form still pays, and tells the embedding page so", async () => {
      const dear = await open(ids.dear);
      const paid = await pay(ids.dear, { ...dear.form, email: 'dear@example.com', ...CARD });
      assert.equal(paid.status, 200, alertOf(paid.html));
      assert.match(paid.html, /Payment of <strong>\$49\.00<\/strong> received/);
      assert.match(paid.script, /"type":"paid"/);
    });

    test('the token sent again with another total or currency on its own form is refused; the same form again shows its receipt', async () => {
      const cheap = await open(ids.cheap);
      const fields: Record<string, string> = { ...cheap.form, email: 'price@example.com', ...CARD };
      assert.equal((await pay(ids.cheap, fields)).status, 200);
      assertRefused(
        await pay(ids.cheap, { ...fields, expectedTotal: String(Number(fields.expectedTotal) + 4800) }),
        'another total',
      );
      assertRefused(await pay(ids.cheap, { ...fields, expectedCurrency: 'EUR' }), 'another currency');
      const again = await pay(ids.cheap, fields);
      assert.equal(again.status, 200, 'a double submit of the same form');
      assert.match(again.script, /"type":"paid"/);
      assert.equal((await purchasesOf('price@example.com')).length, 1);
    });

    test("the token sent with another vendor's product form, or the other environment's, is refused", async () => {
      const token = await paidCheap('elsewhere@example.com');
      const foreign = await open(ids.foreign);
      assertRefused(
        await pay(ids.foreign, { ...foreign.form, token, email: 'elsewhere@example.com', ...CARD }),
        "another vendor's product",
      );
      const live = await open(ids.live, 'production');
      assertRefused(
        await pay(ids.live, { ...live.form, token, email: 'elsewhere@example.com', ...CARD }, 'production'),
        'production',
      );
      assert.equal((await pageOf(await fetch(`${base(ids.foreign)}/confirm/${token}`))).status, 404);
      assert.equal((await purchasesOf('elsewhere@example.com')).length, 1);
      assert.equal(
        ((await v.api('/v1/transactions/elsewhere@example.com', { environment: 'production' })).json as unknown[])
          .length,
        0,
      );
    });

    test("a token whose card was declined may pay again on its own form, never on another product's", async () => {
      const cheap = await open(ids.cheap);
      const fields: Record<string, string> = { ...cheap.form, email: 'declined@example.com' };
      assert.equal((await pay(ids.cheap, { ...fields, ...DECLINED_CARD })).status, 402);
      const dear = await open(ids.dear);
      assertRefused(
        await pay(ids.dear, { ...dear.form, token: fields.token!, email: 'declined@example.com', ...CARD }),
        'after a decline',
      );
      assert.equal((await pay(ids.cheap, { ...fields, ...CARD })).status, 200, 'another card on its own form');
      assert.deepEqual(
        (await purchasesOf('declined@example.com')).map((p) => p.productId),
        [ids.cheap],
      );
    });
  });

  describe(`checkout form tokens, with the card taken by Stripe in the browser (${kind})`, () => {
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind);
    });
    after(() => w?.close());

    const product = (value: number) =>
      w.vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value }] }, 'production').then((p) => p.id);
    const formOf = async (id: string) =>
      hiddenFields(await (await fetch(`${w.app.url}/payment/product/${id}?${EMBEDDED}`)).text());
    const startSession = async (id: string, form: Record<string, string>) => {
      const res = await fetch(`${w.app.url}/payment/product/${id}/session?${EMBEDDED}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'session@example.com', ...form }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, string> };
    };
    const postsToStripe = () => w.standin.requests.filter((r) => r.method === 'POST').length;

    test("an open session's token sent to another product's session is refused and makes nothing at Stripe; that product's own form starts its own", async () => {
      const [cheap, dear] = [await product(1), await product(49)];
      const token = (await formOf(cheap)).token!;
      const started = await startSession(cheap, { ...(await formOf(cheap)), token });
      assert.equal(started.status, 200, JSON.stringify(started.json));
      const before = postsToStripe();
      const dearForm = await formOf(dear);
      const refused = await startSession(dear, { ...dearForm, token });
      assert.equal(refused.status, 409, JSON.stringify(refused.json));
      assert.equal(refused.json.error, 'IDEMPOTENCY_CONFLICT');
      assert.match(refused.json.message!, /already used for another payment/);
      assert.equal(refused.json.clientSecret, undefined, "never the other product's session");
      assert.equal(postsToStripe(), before, 'nothing asked of Stripe');
      const own = await startSession(dear, dearForm);
      assert.equal(own.status, 200);
      assert.notEqual(own.json.clientSecret, started.json.clientSecret);
      const intent = await w.stripe.paymentIntents.retrieve(own.json.clientSecret!.split('_secret_')[0]!);
      assert.equal(intent.amount, 4900);
    });

    test("a paid session's token under another product's confirmation page finds nothing, and says nothing to the embedding page", async () => {
      const [cheap, dear] = [await product(1), await product(49)];
      const run = await w.checkout(cheap, { email: 'paid@example.com' });
      assert.equal(run.status, 200, run.html);
      const token = /confirm\/([^?]+)/.exec(run.session!.confirmUrl)![1]!;
      const foreign = await pageOf(await fetch(`${w.app.url}/payment/product/${dear}/confirm/${token}?${EMBEDDED}`));
      assert.equal(foreign.status, 404);
      assert.doesNotMatch(foreign.script, /"type":"paid"/);
      const refused = await startSession(dear, { ...(await formOf(dear)), token });
      assert.equal(refused.status, 409);
      assert.equal(refused.json.redirect, undefined, "never sent on to the other product's receipt");
      const own = await pageOf(await fetch(`${w.app.url}/payment/product/${cheap}/confirm/${token}?${EMBEDDED}`));
      assert.equal(own.status, 200);
      assert.match(own.script, /"type":"paid"/);
    });
  });
}
