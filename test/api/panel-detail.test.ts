import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { businessPurchase, signedUp } from '../helpers/panel-world.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, TEST_CARD, TEST_SELLER, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's transaction detail over HTTP, on both stores (issue 36): who bought (name, company,
 * VAT ID, address), where in words, the card in words, the licence key, invoices and credit notes as
 * links that serve their PDFs, the customer's cancellation reason; the management link to copy when
 * e-mails are off (it opens the customer's page) and to send when they are on (a CSRF-checked,
 * rate-limited POST that mails the buyer once and finds no other vendor's transaction).
 */

/** A link the app made with its public base URL, fetched from the test server that serves it. */
function local(t: TestApp, url: string) {
  const sandbox = t.services.urls.base('sandbox');
  const production = t.services.urls.base('production');
  if (url.startsWith(sandbox)) return fetch(`${t.url}/sandbox${url.slice(sandbox.length)}`);
  return fetch(url.startsWith(production) ? `${t.url}${url.slice(production.length)}` : url);
}

/** The text of the `<dd>` a test id marks, tags dropped. */
const fact = (page: string, id: string) =>
  [...page.matchAll(/<dd data-testid="([^"]+)">([\s\S]*?)<\/dd>/g)]
    .find((m) => m[1] === id)?.[2]
    ?.replace(/<br>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .trim();

for (const kind of await storeKinds()) {
  describe(`panel transaction detail, e-mails off (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    test('shows the buyer, the place in words, the card, the licence key, documents as links and the reason the customer gave', async () => {
      const { b, scope } = await signedUp(t, 'owner@detail.test');
      const { id, licence } = await businessPurchase(t, scope);
      await t.services.refunds.refund(scope, id, { request: { amount: 10, reason: 'Goodwill' } });
      await t.services.transactions.cancel(scope, id, 'CUSTOMER');
      // What the portal's cancel keeps (the portal's own tests cover writing it).
      await t.services.database.kysely
        .updateTable('transactions')
        .set({ cancel_reason: 'Too expensive <for now>' })
        .where('id', '=', id)
        .execute();

      const page = (await b.get(`/panel/transactions/${id}?env=sandbox`)).html;
      assert.equal(fact(page, 'buyer-name'), 'Ann Lee');
      assert.equal(fact(page, 'company'), 'Lee Design LLC');
      assert.equal(fact(page, 'address'), '500 Market St\nSan Francisco\n94103');
      assert.equal(fact(page, 'country'), 'United States, California');
      assert.equal(fact(page, 'paid-with'), 'Visa ending in 4242, expires 12/2035');
      assert.match(page, new RegExp(`<code id="licence" data-testid="licence">${licence}</code>`));
      assert.match(page, /data-copy="licence"/);
      assert.equal(fact(page, 'cancelled-by'), 'The customer');
      assert.equal(fact(page, 'cancel-reason'), 'Too expensive &#60;for now&#62;', 'the reason is escaped');
      assert.equal(fact(page, 'vat-id'), undefined, 'no VAT ID given, none shown');

      const links = [...page.matchAll(/<a href="([^"]+)" data-testid="document">([^<]+)<\/a>/g)];
      assert.deepEqual(
        links.map((m) => m[2]),
        ['Invoice TEST-000001', 'Credit note TEST-000002'],
      );
      const entries = await t.services.store.entries.listForTransaction(id);
      assert.equal(links[0]![1], `${t.services.urls.base('sandbox')}/invoice/${entries[0]!.hashId}`);
      for (const [, href] of links) {
        const pdf = await local(t, href!);
        assert.equal(pdf.status, 200, href);
        assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      }
    });

    test('a business buyer with a VAT ID shows it; a buyer without a region shows the country alone', async () => {
      const { b, scope } = await signedUp(t, 'vat@detail.test');
      const product = await t.services.catalog.createProduct(scope, {
        name: 'App',
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 49 },
          { currency: 'EUR', value: 45 },
        ],
      });
      const result = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email: 'einkauf@firma.test',
        country: 'DE',
        businessName: 'Firma GmbH',
        vatId: 'DE 123 456 789',
        buyerAddress: 'Hauptstraße 5\n10115 Berlin',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      const page = (
        await b.get(`/panel/transactions/${result.status === 'PAID' ? result.transaction.id : ''}?env=sandbox`)
      ).html;
      assert.equal(fact(page, 'vat-id'), 'DE123456789');
      assert.equal(fact(page, 'company'), 'Firma GmbH');
      assert.equal(fact(page, 'country'), 'Germany');
      assert.equal(fact(page, 'buyer-name'), undefined, 'no name given, none shown');
      assert.doesNotMatch(page, /data-testid="licence"/, 'no licence, no key');
    });

    test('with e-mails off the page offers the management link to copy, and it opens the customer’s page; nothing to send', async () => {
      const { b, scope } = await signedUp(t, 'copy@detail.test');
      const { id } = await businessPurchase(t, scope);
      const page = (await b.get(`/panel/transactions/${id}?env=sandbox`)).html;
      assert.doesNotMatch(page, /send-manage-link/);
      assert.match(page, /data-copy="manage-link"/);
      const url = /<code id="manage-link" data-testid="manage-link">([^<]+)<\/code>/.exec(page)![1]!;
      assert.ok(url.startsWith(`${t.services.urls.base('sandbox')}/manage/`), url);
      const manage = await local(t, url);
      assert.equal(manage.status, 200);
      assert.match(await manage.text(), /Team Plan/, "the buyer's purchase is on it, whatever the case of the e-mail");

      // Sent anyway (an old page): nothing goes out, the page says to copy the link.
      const sent = await b.post(`/panel/transactions/${id}/manage-link?env=sandbox`, {});
      assert.equal(sent.status, 303);
      assert.match(sent.location!, /done=manage-link-off/);
    });

    test("another vendor's transaction is not found, to read or to send a link for", async () => {
      const { scope } = await signedUp(t, 'first@detail.test');
      const { id } = await businessPurchase(t, scope);
      const { b: other } = await signedUp(t, 'second@detail.test');
      assert.equal((await other.get(`/panel/transactions/${id}?env=sandbox`)).status, 404);
      const sent = await other.post(`/panel/transactions/${id}/manage-link?env=sandbox`, {});
      assert.equal(sent.status, 404);
      assert.doesNotMatch(sent.html, /ann@example\.com/i);
    });
  });

  describe(`panel transaction detail, e-mails on (${kind})`, () => {
    let t: TestApp;
    let inbox: SmtpInbox;
    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        env: { PANEL_SIGNUP: 'open', SMTP_URL: inbox.url, SMTP_FROM: 'r@opentill.test' },
      });
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });

    /** The one management link in a message, and whether it opens the page it names. */
    const opens = async (mail: { text?: string | undefined }) => {
      const url = /https?:\/\/\S+\/manage\/[\w.-]+/.exec(mail.text ?? '')?.[0];
      assert.ok(url, mail.text);
      return (await local(t, url)).status === 200;
    };

    // First: the limit of five a minute is the address's, and the next test spends it.
    test('in the sandbox the management link goes to the vendor, as its other e-mails do, and the page says so', async () => {
      const { b, scope } = await signedUp(t, 'sandbox@detail.test');
      const { id } = await businessPurchase(t, scope);
      const page = (await b.get(`/panel/transactions/${id}?env=sandbox`)).html;
      assert.match(page, /Sandbox e-mails go to your own address instead/);
      const sent = await b.post(`/panel/transactions/${id}/manage-link?env=sandbox`, {});
      assert.match(sent.location!, /done=manage-link-sent-to-you/);
      assert.equal(inbox.to('ann@example.com').length, 0, 'no sandbox e-mail to the customer');
      const mails = inbox.to('sandbox@detail.test');
      assert.equal(mails.length, 1);
      assert.ok(await opens(mails[0]!), 'the link opens the customer’s page');
      assert.match((await b.get(sent.location!)).html, /on its way to your own address, not to the customer/);
    });
    test('Send management link mails the buyer a link that opens their page; without the form token nothing is sent; then it is rate limited', async () => {
      const { b, scope } = await signedUp(t, 'send@detail.test');
      await t.services.catalog.enableProduction(scope.vendorId);
      await t.services.catalog.updateVendorSettings(scope.vendorId, TEST_SELLER('Detail Co'));
      const { id } = await businessPurchase(t, { ...scope, environment: 'production' });
      const path = `/panel/transactions/${id}`;
      const page = (await b.get(`${path}?env=production`)).html;
      assert.match(page, /data-testid="send-manage-link"/);
      assert.doesNotMatch(page, /data-testid="manage-link"|Sandbox e-mails go to your own address/);

      const forged = await b.post(`${path}/manage-link?env=production`, {}, false);
      assert.equal(forged.status, 403);
      assert.equal(inbox.to('ann@example.com').length, 0, 'nothing sent without the form token');

      await b.get(`${path}?env=production`);
      const sent = await b.post(`${path}/manage-link?env=production`, {});
      assert.equal(sent.status, 303);
      assert.match(sent.location!, /done=manage-link-sent$/);
      const mails = inbox.to('ann@example.com');
      assert.equal(mails.length, 1);
      assert.ok(await opens(mails[0]!), 'the link opens the customer’s page');
      assert.match((await b.get(sent.location!)).html, /The management link is on its way to the customer/);

      let status = 0;
      for (let i = 0; i < 6 && status !== 429; i++)
        status = (await b.post(`${path}/manage-link?env=production`, {})).status;
      assert.equal(status, 429, 'a few a minute, then refused');
      assert.ok(inbox.to('ann@example.com').length <= 5);
    });
  });
}
