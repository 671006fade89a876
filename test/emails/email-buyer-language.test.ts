import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { fixedClock } from '../../src/domain/clock.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The buyer's language, kept with the purchase (docs/decisions.md §35), on each store: the receipt, the
 * invoice behind its link and a renewal a month later speak the language the buyer bought in; a
 * purchase without one is English.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`e-mails and invoices in the buyer's language (${kind})`, () => {
    const clock = fixedClock(new Date('2030-03-01T09:00:00.000Z'));
    let inbox: SmtpInbox;
    let t: TestApp;
    let v: TestVendor;

    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        clock,
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'receipts@opentill.test', SMTP_SANDBOX_TO: 'customers' },
      });
      v = await t.newVendor('Acme Tools');
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });

    const work = () => runWorkerOnce(t.services);
    const local = (url: string) => url.replace('http://opentill.test', t.url);
    const link = (mail: ParsedMail, part: string) =>
      local([...(mail.text ?? '').matchAll(/https?:\/\/\S+/g)].map((m) => m[0]).find((l) => l.includes(part))!);
    const invoiceText = async (mail: ParsedMail) => {
      const res = await fetch(link(mail, '/invoice/'));
      assert.equal(res.status, 200);
      return pdfText(Buffer.from(await res.arrayBuffer()));
    };

    test('a German buyer gets a German receipt and invoice (billing name, card), and the renewal a month later in German', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Cloud',
        chargeFrequency: 'MONTHLY',
        prices: [
          { currency: 'EUR', value: 10 },
          { currency: 'USD', value: 11 },
        ],
      });
      const id = await v.buy(product.id, {
        email: 'jonas@example.de',
        firstName: 'Jonas',
        lastName: 'Weiß',
        country: 'DE',
        currency: 'EUR',
        locale: 'de',
      });
      await work();
      const [receipt] = inbox.to('jonas@example.de');
      assert.equal(receipt?.subject, '[Test] Ihre Quittung von Acme Tools');
      assert.match(String(receipt.html), /<html lang="de" dir="ltr">/);
      assert.match(receipt.text!, /Ihre Käufe verwalten:\nhttp\S+\/manage\//);
      const invoice = await invoiceText(receipt);
      for (const words of [
        'Rechnung TEST-',
        'Käufer',
        'Jonas Weiß',
        'Bezahlt mit Visa mit Endziffern 4242',
        'Gezahlter Gesamtbetrag',
      ])
        assert.ok(invoice.includes(words), `"${words}" in: ${invoice}`);

      // The billing name edited since (the portal's billing details): later invoices use it, not the card holder's.
      await t.services.database.kysely
        .updateTable('transactions')
        .set({ buyer_name: 'Weiß Consulting GmbH' })
        .where('id', '=', id)
        .execute();
      clock.advance(31 * DAY);
      await work();
      await work();
      const renewed = inbox.to('jonas@example.de').find((m) => m.subject?.includes('Zahlung erhalten'));
      assert.ok(
        renewed,
        `a German renewal: ${inbox
          .to('jonas@example.de')
          .map((m) => m.subject)
          .join(' | ')}`,
      );
      const later = await invoiceText(renewed);
      assert.match(later, /Abrechnungszeitraum vom \d+\. \S+ 2030 bis \d+\. \S+ 2030/);
      assert.ok(later.includes('Weiß Consulting GmbH') && !later.includes('Jonas Weiß'), later);
    });

    test('an Arabic buyer gets a right-to-left receipt and an Arabic invoice; a buyer without a language gets English', async () => {
      const product = await v.product({
        type: 'ONETIME',
        name: 'Acme Studio',
        prices: [
          { currency: 'EUR', value: 20 },
          { currency: 'USD', value: 22 },
        ],
      });
      await v.buy(product.id, {
        email: 'layla@example.ae',
        firstName: 'ليلى',
        lastName: 'حداد',
        country: 'FR',
        currency: 'EUR',
        locale: 'ar',
      });
      await v.buy(product.id, { email: 'ann@example.com', country: 'FR', currency: 'EUR' });
      await work();
      const [arabic] = inbox.to('layla@example.ae');
      assert.equal(arabic?.subject, '[Test] إيصالك من Acme Tools');
      assert.match(String(arabic.html), /<html lang="ar" dir="rtl">/);
      const invoice = await invoiceText(arabic);
      for (const words of ['فاتورة', 'المشتري', 'ليلى', 'حداد'])
        assert.ok(invoice.includes(words), `"${words}" in: ${invoice}`);
      const [english] = inbox.to('ann@example.com');
      assert.equal(english?.subject, '[Test] Your receipt from Acme Tools');
      assert.ok((await invoiceText(english)).includes('Invoice TEST-'));
    });
  });
}
