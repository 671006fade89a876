import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import { ARTIFACTS, freePort, screenshot } from '../../support/chromium.ts';
import { startTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * After payment, in the browser (docs/decisions.md §29), in a real Chromium: a vendor's page on its own
 * origin embeds the client script, listens with `tc.on` and the script tag's `data-ts-event` function, and
 * sells with `data-ts-success-url`. It hears `checkout.opened`, `checkout.paid` (once) and
 * `checkout.failed` from the checkout's own frame and origin only, and lands on its success URL with the
 * transaction's id added; a hostile frame's forged `paid` moves nothing.
 */

interface Site {
  server: Server;
  origin: string;
}

async function site(page: (url: URL) => string): Promise<Site> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(new URL(req.url!, 'http://localhost')));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

/** Each event a handler received, kept in sessionStorage so that it outlives the page's navigation to the success URL. */
type Heard = [
  via: 'on' | 'named',
  name: string,
  productId: string,
  transactionId: string | null,
  status: string | null,
];
const RECORDER = `<script>
function record(via, e) {
  var log = JSON.parse(sessionStorage.getItem('heard') || '[]');
  log.push([via, e.name, e.productId, e.transactionId, e.status]);
  sessionStorage.setItem('heard', JSON.stringify(log));
}
function onOpentill(e) { record('named', e); }
</script>`;
const LISTEN = `<script>['checkout.opened', 'checkout.closed', 'checkout.paid', 'checkout.failed'].forEach(function (name) {
  tc.on(name, function (e) { record('on', e); });
});</script>`;

describe('the client script tells the vendor page of the checkout, in Chromium', () => {
  let t: TestApp;
  let v: TestVendor;
  let browser: Browser;
  let vendor: Site;
  let hostile: Site;
  let productId: string;

  before(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { port, env: { BASE_URL: `http://127.0.0.1:${port}` } });
    v = await t.newVendor('Acme Software');
    productId = (await v.product({ type: 'ONETIME', name: 'Acme Pro', prices: [{ currency: 'USD', value: 20 }] })).id;
    hostile = await site(() => `<!doctype html><title>Chat</title><p>Chat with us</p>`);
    vendor = await site((url) => {
      if (url.pathname === '/thanks')
        return `<!doctype html><title>Thanks</title><h1>Thank you for buying Acme Pro</h1>`;
      const email = url.searchParams.get('email') ?? 'buyer@example.com';
      const button = (id: string, extra: string) =>
        `<button id="${id}" data-ts-button data-ts-product="${productId}" data-ts-country="DE" data-ts-email="${email}" ${extra}>Buy</button>`;
      return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>${RECORDER}
      <script src="${t.url}/latest/widget.sandbox.min.js" data-ts-event="onOpentill"></script>${LISTEN}</head><body>
      <h1>Acme Pro</h1>
      ${button('buy', 'data-ts-success-url="/thanks?plan=pro&amp;note=a%20b"')}
      ${button('plain', '')}
      ${button('evil', 'data-ts-success-url="javascript:alert(document.domain)"')}
      <iframe id="chat" title="Chat" src="${hostile.origin}/" style="width:300px;height:100px"></iframe></body></html>`;
    });
    browser = await sharedChromium();
  });

  after(async () => {
    await browser?.close();
    for (const s of [vendor, hostile]) s?.server.close();
    await t?.close();
  });

  const heardIn = (page: Page): Promise<Heard[]> =>
    page.evaluate(() => JSON.parse(sessionStorage.getItem('heard') || '[]'));
  const heardBoth = (name: string, transactionId: string | null, status: string | null): Heard[] => [
    ['on', name, productId, transactionId, status],
    ['named', name, productId, transactionId, status],
  ];
  const OPENED = () => heardBoth('checkout.opened', null, null);

  /** The vendor's page at desktop size; `button` pressed, the checkout's form shown in the overlay. */
  async function openCheckout(email: string, button: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(`${vendor.origin}/shop?email=${encodeURIComponent(email)}`);
    await page.click(button);
    const checkout = page.frameLocator('iframe[title="Checkout"]');
    await checkout.locator('#cardNumber').waitFor();
    return { page, checkout };
  }
  /** Types the card into the checkout (in the overlay, or the page itself) and presses Pay. */
  async function pay(checkout: FrameLocator | Page, card: string) {
    await checkout.locator('#cardNumber').fill(card);
    await checkout.locator('#cardExpiry').fill('12/34');
    await checkout.locator('#cardCvc').fill('123');
    await checkout.locator('#pay').click();
  }
  const frameOf = async (page: Page, title: string) =>
    (await (await page.$(`iframe[title="${title}"]`))!.contentFrame())!;
  const forgePaid = (frame: Frame, to: string) =>
    frame.evaluate((target) => {
      const forged = { source: 'opentill', transactionId: 'TC-TR_FORGED', status: 'ONE_TIME_PAYMENT_STATUS_PAID' };
      parent.postMessage({ ...forged, type: 'paid' }, target);
      parent.postMessage({ ...forged, type: 'close' }, target);
    }, to);

  test('a paid checkout: checkout.opened, then checkout.paid with the transaction, then the success URL with transaction_id added and its own query kept', async () => {
    const { page, checkout } = await openCheckout('paid@example.com', '#buy');
    await pay(checkout, '4242 4242 4242 4242');
    await page.waitForURL((url) => url.pathname === '/thanks');
    const [paid] = (await v.api('/v1/transactions/paid%40example.com')).json;
    const landed = new URL(page.url());
    assert.equal(landed.origin, vendor.origin);
    assert.deepEqual(
      [...landed.searchParams],
      [
        ['plan', 'pro'],
        ['note', 'a b'],
        ['transaction_id', paid.id],
      ],
    );
    assert.deepEqual(await heardIn(page), [
      ...OPENED(),
      ...heardBoth('checkout.paid', paid.id, paid.transactionStatus),
    ]);
    // The URL proves nothing by itself: the vendor's server asks the API about the id it was given.
    const confirmed = await v.api(`/v1/transaction/${encodeURIComponent(landed.searchParams.get('transaction_id')!)}`);
    assert.equal(confirmed.status, 200);
    assert.equal(confirmed.json.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
    await page.close();
  });

  test("messages from any other frame or origin are ignored: a third party's frame, a second frame of the checkout's origin, and the overlay's frame once it is on another origin", async () => {
    const { page } = await openCheckout('hostile@example.com', '#buy');
    const overlay = await frameOf(page, 'Checkout');
    const checkoutUrl = overlay.url();
    // Another site's frame in the vendor's page: wrong origin, wrong window.
    await forgePaid(
      page.frames().find((f) => f.url().startsWith(hostile.origin))!,
      '*',
    );
    // A second checkout frame, announced for this page: the checkout's origin, but not the overlay's window.
    await page.evaluate((src) => {
      const twin = document.createElement('iframe');
      twin.title = 'Twin';
      twin.src = src;
      document.body.appendChild(twin);
    }, checkoutUrl);
    await page.frameLocator('iframe[title="Twin"]').locator('#cardNumber').waitFor();
    await forgePaid(await frameOf(page, 'Twin'), vendor.origin);
    // The overlay's own window, navigated to another origin: the right window, the wrong origin.
    const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f.url() === `${hostile.origin}/evil` });
    await overlay.evaluate((to) => location.assign(to), `${hostile.origin}/evil`);
    const away = await navigated;
    await away.waitForLoadState();
    assert.equal(away, await frameOf(page, 'Checkout'), "the overlay's own frame");
    await forgePaid(away, '*');

    await page.waitForTimeout(500);
    assert.equal(new URL(page.url()).pathname, '/shop', 'no success URL');
    assert.deepEqual(await heardIn(page), OPENED(), 'no paid, no closed');
    assert.equal(await page.locator('iframe[title="Checkout"]').count(), 1, "the forged 'close' closed nothing");
    // Escape on the vendor's page (focus is in the frame, now another site's) still closes the overlay.
    await page.evaluate(() => document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' })));
    await page.locator('iframe[title="Checkout"]').waitFor({ state: 'detached' });
    assert.deepEqual(await heardIn(page), [...OPENED(), ...heardBoth('checkout.closed', null, null)]);
    await page.close();
  });

  test('a declined card: checkout.failed and the buyer stays; another card in the same overlay pays and lands on the success URL', async () => {
    const { page, checkout } = await openCheckout('declined@example.com', '#buy');
    await pay(checkout, '4000 0000 0000 0002');
    await checkout.locator('#error').waitFor();
    await page.waitForFunction(() => (sessionStorage.getItem('heard') || '').includes('checkout.failed'));
    await page.waitForTimeout(300);
    assert.equal(new URL(page.url()).pathname, '/shop', 'a failed payment is not followed to the success URL');
    assert.deepEqual(await heardIn(page), [...OPENED(), ...heardBoth('checkout.failed', null, 'DECLINED')]);
    await screenshot(page, `${ARTIFACTS}checkout-events-declined-desktop.png`);

    await pay(checkout, '4242 4242 4242 4242');
    await page.waitForURL((url) => url.pathname === '/thanks');
    const [paid] = (await v.api('/v1/transactions/declined%40example.com')).json;
    assert.equal(new URL(page.url()).searchParams.get('transaction_id'), paid.id);
    assert.deepEqual((await heardIn(page)).slice(-2), heardBoth('checkout.paid', paid.id, paid.transactionStatus));
    await page.close();
  });

  test("checkout.paid is heard once: the receipt's 'paid' said again changes nothing; closing the receipt is checkout.closed", async () => {
    const { page, checkout } = await openCheckout('once@example.com', '#plain');
    await pay(checkout, '4242 4242 4242 4242');
    await checkout.locator('#receipt').waitFor();
    await page.waitForFunction(() => (sessionStorage.getItem('heard') || '').includes('checkout.paid'));
    const [paid] = (await v.api('/v1/transactions/once%40example.com')).json;
    // The checkout's own frame says it again (as a receipt shown again does).
    await (
      await frameOf(page, 'Checkout')
    ).evaluate(
      ([origin, id]) => parent.postMessage({ source: 'opentill', type: 'paid', transactionId: id }, origin!),
      [vendor.origin, paid.id],
    );
    await page.waitForTimeout(300);
    assert.equal(new URL(page.url()).pathname, '/shop', 'no success URL was given: the buyer stays on the receipt');
    await checkout.locator('#close').click();
    await page.locator('iframe[title="Checkout"]').waitFor({ state: 'detached' });
    assert.deepEqual(await heardIn(page), [
      ...OPENED(),
      ...heardBoth('checkout.paid', paid.id, 'ONE_TIME_PAYMENT_STATUS_PAID'),
      ...heardBoth('checkout.closed', null, null),
    ]);
    await page.close();
  });

  test('a javascript: success URL is refused before anything opens, from tc.buy and from data-ts-success-url', async () => {
    const page = await browser.newPage();
    await page.goto(`${vendor.origin}/shop?email=evil@example.com`);
    const refused = await page.evaluate(
      ([id, url]) =>
        (window as unknown as { tc: { buy(id: string, o: object): Promise<void> } }).tc
          .buy(id!, { successUrl: url })
          .then(
            () => 'opened',
            (e: Error) => e.message,
          ),
      [productId, 'javascript:alert(document.domain)'],
    );
    assert.equal(refused, 'opentill: successUrl is not an http(s) URL.');
    await page.click('#evil');
    await page.waitForFunction(() => document.getElementById('evil')!.hasAttribute('data-ts-error'));
    assert.equal(await page.getAttribute('#evil', 'data-ts-error'), 'opentill: successUrl is not an http(s) URL.');
    assert.equal(await page.locator('iframe[title="Checkout"]').count(), 0);
    assert.deepEqual(await heardIn(page), []);
    await page.close();
  });

  test('the hosted checkout never follows a success URL put in its link: the buyer stays on the receipt at the checkout', async () => {
    const page = await browser.newPage();
    const link = `${t.url}/sandbox/payment/product/${productId}?country=DE&email=link%40example.com&successUrl=${encodeURIComponent(`${hostile.origin}/evil`)}`;
    await page.goto(link);
    await pay(page, '4242 4242 4242 4242');
    await page.locator('#receipt').waitFor();
    await page.waitForTimeout(300);
    assert.equal(new URL(page.url()).origin, t.url);
    assert.doesNotMatch(await page.content(), /localhost/);
    await page.close();
  });
});
