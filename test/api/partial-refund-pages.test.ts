import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { Scope } from '../../src/domain/model.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { hiddenFields } from '../../support/checkout-form.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * Refunding part of a payment from the vendor panel and from the admin tool, over HTTP on both stores:
 * the confirmation offers all that is left and takes a smaller amount and a reason; the notice after it
 * says what is left; the reason is kept, shown in the ledger and on the credit note; a wrong amount is
 * refused with the typed values kept and nothing booked; the customer's e-mail names the part refunded.
 */
for (const kind of await storeKinds()) {
  describe(`partial refunds from the panel and the admin tool (${kind})`, () => {
    const clock = fixedClock(new Date('2030-09-01T09:00:00.000Z'));
    let inbox: SmtpInbox;
    let t: TestApp;
    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        clock,
        env: {
          SMTP_URL: inbox.url,
          SMTP_FROM: 'receipts@opentill.test',
          SMTP_SANDBOX_TO: 'customers',
          PANEL_SIGNUP: 'open',
        },
      });
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });
    beforeEach(() => {
      inbox.messages.length = 0;
      clock.advance(60_000);
    });

    const entriesOf = async (id: string) => t.services.store.entries.listForTransaction(id);
    const buy = async (scope: Scope, email: string, value = 40) => {
      const product = await t.services.catalog.createProduct(scope, {
        name: 'Acme Pro',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value }],
      });
      const result = await t.services.purchases.purchase(scope, {
        productId: product.id,
        email,
        country: 'US',
        card: TEST_CARD,
      });
      assert.equal(result.status, 'PAID');
      return (result as { transaction: { id: string } }).transaction.id;
    };
    const form = (fields: Record<string, string>, cookie = '') =>
      ({
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(fields),
      }) as const;
    const page = async (path: string, cookie = '') => {
      const res = await fetch(`${t.url}${path}`, { headers: { cookie }, redirect: 'manual' });
      return { status: res.status, html: await res.text(), location: res.headers.get('location') };
    };

    test('panel: 10 of 40 with a reason, then too much (refused, typed values kept), then the 30 left; the notices say what is left', async () => {
      const { cookie: session } = await t.services.panel.signUp({
        company: 'Acme',
        email: `owner-${kind}@acme.test`,
        password: 'a long enough passphrase',
      });
      const cookie = `ot_panel=${session}`;
      const { user, csrfToken } = (await t.services.panel.session(session))!;
      const scope: Scope = { vendorId: user.vendorId, environment: 'sandbox' };
      const id = await buy(scope, 'pat@example.com');
      const confirmPath = `/panel/transactions/${id}/refund?env=sandbox`;
      const post = async (fields: Record<string, string>) => {
        const res = await fetch(`${t.url}${confirmPath}`, form({ csrf: csrfToken, ...fields }, cookie));
        return { status: res.status, html: await res.text(), location: res.headers.get('location') };
      };

      const confirm = await page(confirmPath, cookie);
      assert.match(confirm.html, /<strong>\$40\.00<\/strong> can be refunded/);
      const version = /name="version" value="(\d+)"/.exec(confirm.html)![1]!;
      const part = await post({ version, amount: '10,00', reason: 'Late delivery' });
      assert.equal(part.status, 303, part.html);
      const twice = await post({ version, amount: '10,00', reason: 'Late delivery' });
      assert.equal(twice.status, 400, 'the same confirmation sent twice refunds once');
      assert.match(twice.html, /changed since this page was shown/);
      let detail = await page(part.location!, cookie);
      assert.match(detail.html, /Refunded\. \$30\.00 of the payment of 2030-09-01 is left to refund\./);
      assert.match(detail.html, /data-testid="reason">Late delivery</);
      assert.match(detail.html, /Refund \(up to \$30\.00\)/);
      assert.match(detail.html, /<span class="st good">Paid<\/span>/, 'a part refunded: still paid');
      const [, refund] = await entriesOf(id);
      assert.deepEqual([refund!.amountTotalMinor, refund!.description], [-1000, 'Late delivery']);
      assert.ok(refund!.invoiceNumber, 'a credit note of the part');

      const next = await page(confirmPath, cookie);
      assert.match(
        next.html,
        /\$40\.00, of which \$10\.00 is already taken back\. <strong>\$30\.00<\/strong> can be refunded/,
      );
      const nextVersion = /name="version" value="(\d+)"/.exec(next.html)![1]!;
      for (const [amount, why] of [
        ['30.01', /more than is left/],
        ['0', /more than zero/],
        ['ten', /./],
        ['1.001', /decimals/],
      ] as const) {
        const refused = await post({ version: nextVersion, amount, reason: 'Second thoughts' });
        assert.equal(refused.status, 400, amount);
        assert.match(refused.html, why, amount);
        assert.ok(
          refused.html.includes(`value="${amount}"`) && refused.html.includes('>Second thoughts</textarea>'),
          'what was typed stays',
        );
      }
      assert.equal((await entriesOf(id)).length, 2, 'nothing booked by a refusal');

      const rest = await post({ version: nextVersion, amount: '30.00' });
      assert.equal(rest.status, 303);
      detail = await page(rest.location!, cookie);
      assert.match(detail.html, /Refunded\. Nothing is left to refund\./);
      assert.match(detail.html, /<span class="st bad">Refunded<\/span>/);
      assert.ok(!detail.html.includes('data-testid="refund"'));

      await runWorkerOnce(t.services);
      const mails = inbox.to('pat@example.com').filter((m) => /Refund issued: Acme Pro$/.test(m.subject ?? ''));
      assert.deepEqual(
        mails.map((m) => /refunded (\$[\d.]+) for/.exec(m.text ?? '')?.[1]).sort(),
        ['$10.00', '$30.00'],
        'one e-mail per refund, each naming its amount',
      );
    });

    test('admin tool: part of a payment with a reason; a refusal keeps the typed amount; the rest by default', async () => {
      const v = await t.newVendor('Acme Tools');
      const id = await buy(v.scope(), 'quinn@example.com', 25);
      const link = new URL((await v.api('/v1/generate-url-to-admin')).json.url).pathname;
      const opened = await fetch(`${t.url}${link}`, { redirect: 'manual' });
      const detailPath = new URL(
        `${new URL(opened.headers.get('location')!, `${t.url}${link}`).pathname}/tx/${id}`,
        t.url,
      ).pathname;
      const refundForm = async () => {
        const html = (await page(detailPath)).html;
        const f = new RegExp(
          '<form method="post">(?:(?!</form>).)*name="action" value="refund"(?:(?!</form>).)*</form>',
          's',
        ).exec(html)?.[0];
        return { html, fields: f ? hiddenFields(f) : undefined };
      };

      let shown = await refundForm();
      assert.match(shown.html, /Up to <strong>\$25\.00<\/strong> can be refunded/);
      assert.match(shown.html, /id="amount" name="amount"[^>]*value="25\.00"/);
      const tooMuch = await fetch(
        `${t.url}${detailPath}`,
        form({ ...shown.fields!, amount: '26', reason: 'Broken build' }),
      );
      assert.equal(tooMuch.status, 400);
      const refusedPage = await tooMuch.text();
      assert.match(refusedPage, /more than is left/);
      assert.ok(refusedPage.includes('value="26"') && refusedPage.includes('value="Broken build"'));

      const part = await fetch(
        `${t.url}${detailPath}`,
        form({ ...shown.fields!, amount: '5.50', reason: 'Broken build' }),
      );
      assert.equal(part.status, 303);
      const after = await page(`${detailPath}${part.headers.get('location')}`);
      assert.match(after.html, /role="status">Refunded\. \$19\.50 of the payment of 2030-09-01 is left to refund\./);
      assert.match(after.html, /data-testid="reason">Broken build</);

      shown = await refundForm();
      assert.match(shown.html, /\$5\.50 already taken back\. Up to <strong>\$19\.50<\/strong>/);
      const rest = await fetch(`${t.url}${detailPath}`, form(shown.fields!));
      assert.equal(rest.status, 303, 'no amount: all that is left');
      assert.match(
        (await page(`${detailPath}${rest.headers.get('location')}`)).html,
        /Refunded\. Nothing is left to refund\./,
      );
      assert.deepEqual(
        (await entriesOf(id)).map((e) => [e.amountTotalMinor, e.description]),
        [
          [2500, null],
          [-550, 'Broken build'],
          [-1950, null],
        ],
      );
      assert.equal((await t.services.store.transactions.find(v.scope(), id))!.status, 'TRANSACTION_STATUS_REFUNDED');
    });
  });
}
