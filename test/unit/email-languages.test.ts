import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CUSTOMER_EMAIL_KINDS, type CustomerEmailKind } from '../../src/domain/model.ts';
import type { EmailView } from '../../src/domain/notifications/index.ts';
import { LOCALES, PSEUDO_LOCALE } from '../../src/i18n/index.ts';
import { composeEmail } from '../../src/mail/email-templates.ts';

/**
 * Customer e-mails in the buyer's language (docs/decisions.md §35): every kind in every language, from
 * the transaction's stored locale; right-to-left ones say so; each carries the management link.
 */
const MANAGE = 'https://pay.example/manage/tok.sig';

function view(kind: CustomerEmailKind, locale: string | null, over: Partial<EmailView> = {}): EmailView {
  const paid = kind === 'RECEIPT' || kind === 'RENEWED' || kind === 'REFUNDED';
  return {
    kind,
    locale,
    environment: 'production',
    vendor: { name: 'Acme Tools', supportEmail: 'help@acme.test' },
    product: 'Acme Cloud',
    frequency: 'MONTHLY',
    transactionId: 'TC-TR_1',
    amounts: paid
      ? { currency: 'EUR', netMinor: 4900, taxMinor: 980, totalMinor: 5880, taxName: 'VAT', taxRate: '0.2' }
      : { currency: 'EUR', netMinor: null, taxMinor: null, totalMinor: 5880, taxName: 'VAT', taxRate: null },
    licenceKey: kind === 'RECEIPT' ? 'KEY-1234' : null,
    documentUrl: paid ? 'https://pay.example/invoice/TC-BA_1' : null,
    manageUrl: MANAGE,
    date: paid ? null : '2030-12-03T10:00:00.000Z',
    trial: false,
    ...over,
  };
}

/** Each kind, and the variants a kind has: a trial's receipt, the last failed try, a cancel that ends now. */
const VARIANTS: [string, (locale: string | null) => EmailView][] = [
  ...CUSTOMER_EMAIL_KINDS.map((kind): [string, (l: string | null) => EmailView] => [kind, (l) => view(kind, l)]),
  [
    'RECEIPT (trial)',
    (l) =>
      view('RECEIPT', l, {
        trial: true,
        amounts: null,
        date: '2030-12-03T00:00:00.000Z',
        recurring: { currency: 'EUR', totalMinor: 900 },
      }),
  ],
  ['PAYMENT_FAILED (last try)', (l) => view('PAYMENT_FAILED', l, { date: null })],
  ['CANCELLED (now)', (l) => view('CANCELLED', l, { date: null })],
  [
    'RECEIPT (sandbox, to the vendor)',
    (l) => view('RECEIPT', l, { environment: 'sandbox', meantFor: 'ana@example.com' }),
  ],
];

describe('customer e-mails in every language', () => {
  for (const locale of [...LOCALES, PSEUDO_LOCALE]) {
    test(`${locale}: every kind renders, with its language and direction, and the management link in both parts`, () => {
      const rtl = locale === 'ar' || locale === 'he';
      for (const [name, make] of VARIANTS) {
        const mail = composeEmail(make(locale));
        assert.ok(mail.subject.trim() && mail.text.trim(), `${locale} ${name}`);
        assert.match(
          mail.html,
          new RegExp(`<html lang="${locale === PSEUDO_LOCALE ? 'en' : locale}" dir="${rtl ? 'rtl' : 'ltr'}">`),
        );
        assert.ok(mail.html.includes(`href="${MANAGE}"`), `${locale} ${name}: the management link in the HTML`);
        assert.ok(mail.text.includes(MANAGE), `${locale} ${name}: the management link in the text`);
        assert.doesNotMatch(
          mail.html + mail.text,
          /\{[a-z]+\}|undefined|NaN/,
          `${locale} ${name}: no placeholder left`,
        );
      }
    });
  }

  test('every language but English has its own words: no subject or heading is left in English', () => {
    for (const locale of LOCALES.filter((l) => l !== 'en')) {
      for (const [name, make] of VARIANTS) {
        const english = composeEmail(make('en'));
        const theirs = composeEmail(make(locale));
        assert.notEqual(theirs.subject, english.subject, `${locale} ${name} subject`);
        assert.notEqual(theirs.text.split('\n')[2], english.text.split('\n')[2], `${locale} ${name} heading`);
      }
    }
  });

  test('a transaction without a stored language, or with one opentill lacks, is written in English', () => {
    for (const locale of [null, 'xx', 'zh-TW']) {
      const mail = composeEmail(view('RECEIPT', locale));
      assert.equal(mail.subject, 'Your receipt from Acme Tools');
      assert.match(mail.html, /<html lang="en" dir="ltr">/);
    }
  });

  test('German: the words, the amounts and the dates are German, the tax is USt.', () => {
    const receipt = composeEmail(view('RECEIPT', 'de'));
    assert.equal(receipt.subject, 'Ihre Quittung von Acme Tools');
    assert.match(receipt.text, /Produkt +Acme Cloud\nPreis +49,00\s€\nUSt\. 20% +9,80\s€\nGesamt +58,80\s€\n/);
    assert.match(receipt.text, /Ihr Abonnement für Acme Cloud ist aktiv: 58,80\s€ monatlich\./);
    const renewal = composeEmail(view('RENEWAL_UPCOMING', 'de'));
    assert.equal(renewal.subject, 'Ihr Abonnement für Acme Cloud verlängert sich am 3. Dezember 2030');
    assert.match(renewal.text, /Fragen\? Schreiben Sie an help@acme\.test\./);
  });

  test('Japanese: dates and amounts in Japanese form', () => {
    const failed = composeEmail(view('PAYMENT_FAILED', 'ja'));
    assert.equal(failed.subject, 'Acme Cloudのお支払いができませんでした');
    assert.match(failed.text, /€58\.80/);
    assert.match(failed.text, /2030年12月3日に再度請求いたします/);
  });

  test("a trial's receipt says what follows the trial in the checkout's words, in the buyer's language", () => {
    const trial = (locale: string) =>
      composeEmail(
        view('RECEIPT', locale, {
          trial: true,
          amounts: null,
          date: '2030-12-03T00:00:00.000Z',
          recurring: { currency: 'EUR', totalMinor: 900 },
        }),
      );
    assert.match(trial('en').text, /Then €9\.00 every month from December 3, 2030\./);
    assert.match(trial('de').text, /Danach 9,00\s€ monatlich ab dem 3\. Dezember 2030\./);
    assert.match(trial('fr').text, /Puis 9,00\s€ par mois à partir du 3 décembre 2030\./);
    assert.doesNotMatch(trial('en').text, /Total/, 'no total: nothing was charged today');
  });

  test('Arabic and Hebrew e-mails are right-to-left: the document, its tables and their sides mirror', () => {
    for (const locale of ['ar', 'he']) {
      const mail = composeEmail(view('RECEIPT', locale));
      assert.match(mail.html, /<body dir="rtl"/);
      assert.ok(!mail.html.includes('dir="ltr"><tr><td align="left"'), 'no left-to-right table');
      // Amount rows: the label at the right, the amount at the left.
      assert.match(mail.html, /<td align="right"[^>]*>[^<]+<\/td><td align="left"[^>]*>[^<]*58/);
      // The licence key stays left-to-right inside.
      assert.match(mail.html, /<p dir="ltr"[^>]*>KEY-1234<\/p>/);
    }
    const english = composeEmail(view('RECEIPT', 'en'));
    assert.match(english.html, /<td align="left"[^>]*>[^<]+<\/td><td align="right"[^>]*>[^<]*58/);
  });

  test('values are escaped in the HTML part whatever the language', () => {
    const mail = composeEmail(
      view('REFUNDED', 'fr', { product: '<script>x</script>', vendor: { name: 'A & B', supportEmail: 'h@a.test' } }),
    );
    assert.ok(!mail.html.includes('<script>x'), 'the product name is escaped');
    assert.match(mail.html, /A &#38; B/);
    assert.doesNotMatch(mail.html, /A & B/);
  });
});
