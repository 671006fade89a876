import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { monthlyTrial } from '../helpers/trial-product.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The checkout in the buyer's language (docs/decisions.md §33): which language a page speaks, that the
 * purchase keeps it, the receipt's words after a trial, its payment method and management link, the
 * country list, and the client script's start of a checkout. Through HTTP, on both stores.
 */
const clock = fixedClock(new Date('2026-11-19T10:00:00.000Z'));
const CARD = { cardNumber: '4242424242424242', cardExpiry: '12/34', cardCvc: '123' };

for (const kind of await storeKinds()) {
  describe(`the checkout in the buyer's language (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let oneTime: string;
    let monthly: string;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor('Kiosk GmbH');
      oneTime = (
        await v.product({
          type: 'ONETIME',
          name: 'Atlas',
          prices: [
            { currency: 'USD', value: 22 },
            { currency: 'EUR', value: 20 },
          ],
        } as never)
      ).id;
      monthly = await monthlyTrial(v);
    });
    after(() => t.close());

    const open = async (id: string, query = '', headers: Record<string, string> = {}) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}${query}`, { headers });
      const html = await res.text();
      return { status: res.status, html, form: hiddenFields(html) };
    };
    const pay = async (
      id: string,
      fields: Record<string, string>,
      query = '',
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${id}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields),
      });
      return { status: res.status, html: await res.text() };
    };
    const htmlTag = (html: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(html)?.slice(1);
    const stored = async (email: string) =>
      (await t.services.store.transactions.listByEmail(v.scope('sandbox'), email))[0]!;

    test('?locale= picks the language over Accept-Language; then Accept-Language; then English', async () => {
      const german = await open(oneTime, '?country=DE&locale=de', { 'accept-language': 'ja' });
      assert.deepEqual(htmlTag(german.html), ['de', 'ltr']);
      assert.match(german.html, /<label for="email">E-Mail<\/label>/);
      assert.match(german.html, /<button type="submit" id="pay">23,80\s€ bezahlen<\/button>/);
      const japanese = await open(oneTime, '?country=DE', { 'accept-language': 'fr-CH;q=0.5, ja;q=0.9' });
      assert.deepEqual(htmlTag(japanese.html), ['ja', 'ltr']);
      assert.match(japanese.html, /メールアドレス/);
      // A language we do not speak is passed over, to the browser's; the pseudo-locale only when asked for by name.
      assert.deepEqual(htmlTag((await open(oneTime, '?country=DE&locale=xx-YY', { 'accept-language': 'ar' })).html), [
        'ar',
        'rtl',
      ]);
      const english = await open(oneTime, '?country=DE', { 'accept-language': 'en-XA, sw' });
      assert.deepEqual(htmlTag(english.html), ['en', 'ltr']);
      assert.match(english.html, /<label for="email">E-mail<\/label>/);
      assert.match((await open(oneTime, '?country=DE&locale=en-XA')).html, /<label for="email">É-ɱàíĺ ẋẋẋẋ<\/label>/);
    });

    test('the purchase keeps the language it was made in, and its receipt and form errors speak it', async () => {
      const page = await open(oneTime, '?country=DE&locale=pt-BR');
      const refused = await pay(
        oneTime,
        { ...page.form, email: 'not-an-address', country: 'DE', ...CARD },
        '?locale=pt-BR',
      );
      assert.equal(refused.status, 400);
      assert.match(refused.html, /Alguns dados precisam ser corrigidos/);
      assert.match(refused.html, /<p class="field-error" id="email-error">Informe um e-mail/);
      const paid = await pay(
        oneTime,
        { ...page.form, email: 'ana@example.com', country: 'DE', ...CARD },
        '?locale=pt-BR',
      );
      assert.equal(paid.status, 200);
      assert.deepEqual(htmlTag(paid.html), ['pt-BR', 'ltr']);
      assert.match(paid.html, /Pagamento de <strong>€\s?23,80<\/strong> recebido\./);
      assert.equal((await stored('ana@example.com')).locale, 'pt-BR');
      // Bought through Accept-Language: that language is kept as well.
      const hebrew = await open(oneTime, '?country=DE', { 'accept-language': 'he-IL' });
      const bought = await pay(oneTime, { ...hebrew.form, email: 'dana@example.com', country: 'DE', ...CARD }, '', {
        'accept-language': 'he-IL',
      });
      assert.deepEqual(htmlTag(bought.html), ['he', 'rtl']);
      assert.equal((await stored('dana@example.com')).locale, 'he');
    });

    test("a trial's receipt says nothing was charged today and what follows, in the checkout's own words", async () => {
      const page = await open(monthly, '?country=US');
      const then = /<span data-testid="then">([^<]+)<\/span>/.exec(page.html)![1];
      assert.equal(then, 'Then $9.00 every month from December 3, 2026.');
      const receipt = await pay(monthly, { ...page.form, email: 'tia@example.com', country: 'US', ...CARD });
      assert.equal(receipt.status, 200);
      assert.match(receipt.html, /Your free trial has started\./);
      assert.match(receipt.html, /<span data-testid="paid-today">\$0\.00<\/span>/);
      assert.equal(/<p data-testid="then">([^<]+)<\/p>/.exec(receipt.html)?.[1], then);
      assert.doesNotMatch(receipt.html, /Next charge/, 'the trial says when, in words; no second date');
      assert.doesNotMatch(receipt.html, /Payment of/);
      assert.match(receipt.html, /<span data-testid="payment-method">Visa ending in 4242<\/span>/);
      // In German, the same sentence from the same words.
      const de = await open(monthly, '?country=US&locale=de');
      const dePaid = await pay(monthly, { ...de.form, email: 'tim@example.com', country: 'US', ...CARD }, '?locale=de');
      assert.match(dePaid.html, /<p data-testid="then">Danach 9,00\s\$ monatlich ab dem 3\. Dezember 2026\.<\/p>/);
      assert.match(dePaid.html, /Visa mit Endziffern 4242/);
    });

    test("the receipt's management link opens the buyer's purchases, in the receipt's language", async () => {
      const page = await open(oneTime, '?country=DE&locale=fr');
      const paid = await pay(oneTime, { ...page.form, email: 'Lea@Example.com', country: 'DE', ...CARD }, '?locale=fr');
      const href = /<a href="([^"]+)"[^>]*data-testid="manage">Gérer votre achat<\/a>/.exec(paid.html)?.[1];
      assert.ok(href, 'a management link');
      const url = new URL(href!.replaceAll('&amp;', '&'));
      assert.equal(url.searchParams.get('locale'), 'fr');
      // A management link of this vendor's sandbox for the purchase's e-mail, as the API's: it opens the buyer's purchases.
      const token = /\/sandbox\/manage\/([^/?]+)$/.exec(url.pathname)?.[1];
      const checked = t.services.links.check(token ?? '', 'manage', t.services.clock.real());
      assert.equal(checked.status, 'valid');
      // The receipt found again follows its purchase's language, unless the URL asks for another.
      const again = (query: string) =>
        fetch(`${t.url}/sandbox/payment/product/${oneTime}/confirm/${page.form.token}${query}`).then((r) => r.text());
      assert.deepEqual(htmlTag(await again('')), ['fr', 'ltr']);
      assert.deepEqual(htmlTag(await again('?locale=ja')), ['ja', 'ltr']);
      assert.deepEqual(
        checked.status === 'valid' && [checked.claims.subject, checked.claims.vendorId, checked.claims.environment],
        ['lea@example.com', v.vendor.id, 'sandbox'],
      );
    });

    test('a receipt found again after a day carries no new management link; within the day it does', async () => {
      const page = await open(oneTime, '?country=DE');
      await pay(oneTime, { ...page.form, email: 'max@example.com', country: 'DE', ...CARD });
      const again = () =>
        fetch(`${t.url}/sandbox/payment/product/${oneTime}/confirm/${page.form.token}`).then((res) => res.text());
      try {
        clock.advance(23 * 3600_000);
        assert.match(await again(), /data-testid="manage"/);
        clock.advance(2 * 3600_000);
        const old = await again();
        assert.match(old, /data-testid="transaction-id"/, 'still the receipt');
        assert.doesNotMatch(old, /\/manage\//);
      } finally {
        clock.set(new Date('2026-11-19T10:00:00.000Z'));
      }
    });

    test('one Curaçao, and country names in the buyer’s language, sorted as that language sorts', async () => {
      const options = (html: string) =>
        [...html.matchAll(/<option value="([A-Z]{2})"[^>]*>([^<]+)<\/option>/g)].map((m) => [m[1]!, m[2]!] as const);
      const english = options((await open(oneTime)).html);
      assert.deepEqual(
        english.filter(([, name]) => name === 'Curaçao'),
        [['CW', 'Curaçao']],
      );
      assert.ok(!english.some(([code]) => code === 'AN'), 'the withdrawn Netherlands Antilles code is gone');
      const german = options((await open(oneTime, '?locale=de')).html);
      assert.deepEqual(
        german.find(([code]) => code === 'DE'),
        ['DE', 'Deutschland'],
      );
      const names = german.map(([, name]) => name);
      assert.deepEqual(names, [...names].sort(new Intl.Collator('de').compare));
      // German sorts Ä with A: Ägypten comes before Albanien, not after Z.
      assert.ok(names.indexOf('Ägypten') < names.indexOf('Albanien'), names.slice(0, 5).join(', '));
    });

    test("the form's price updates speak the page's language", async () => {
      const res = await fetch(`${t.url}/sandbox/payment/product/${oneTime}/quote?locale=de&country=FR`);
      const quote = (await res.json()) as { payLabel: string; html: string; countryName: string };
      assert.equal(quote.payLabel, '24,00\u00a0€ bezahlen');
      assert.equal(quote.countryName, 'Frankreich');
      assert.match(quote.html, /<td>MwSt\. \(20\s%\)<\/td>/);
    });

    test('the client script asks for a checkout in a language: its URL carries the locale, and the overlay is named in it', async () => {
      const start = (body: object, headers: Record<string, string> = {}) =>
        fetch(`${t.url}/sandbox/public/v1/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ productId: oneTime, ...body }),
        }).then(async (res) => ({ status: res.status, json: (await res.json()) as { url: string; label: string } }));
      const german = await start({ locale: 'de-AT' });
      assert.equal(german.status, 200);
      assert.equal(new URL(german.json.url).searchParams.get('locale'), 'de');
      assert.equal(german.json.label, 'Kasse');
      // Not one we speak: no locale in the URL (the browser's decides), the overlay named by Accept-Language.
      const unknown = await start({ locale: 'tlh' }, { 'accept-language': 'ko' });
      assert.equal(new URL(unknown.json.url).searchParams.has('locale'), false);
      assert.equal(unknown.json.label, '결제');
      assert.equal((await start({})).json.label, 'Checkout');
      assert.equal((await start({ locale: 7 })).status, 400);
      const page = await open(oneTime, new URL(german.json.url).search);
      assert.deepEqual(htmlTag(page.html), ['de', 'ltr']);
    });
  });
}
