import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { formatForBuyer } from '../../src/domain/money/money.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Customer e-mails end to end, on each store, into a real SMTP server on loopback: each event sends
 * exactly one e-mail, to the customer who paid, with the amounts of its ledger entry, the licence key
 * and links that work (the test opens them), for that customer only.
 */
const DAY = 86_400_000;
const longDate = (ms: number) => new Date(ms).toLocaleDateString('en-US', { dateStyle: 'long', timeZone: 'UTC' });

for (const kind of await storeKinds()) {
  describe(`customer e-mails (${kind})`, () => {
    const clock = fixedClock(new Date('2030-03-01T09:00:00.000Z'));
    /** Answers for the next charges of one amount (other tests' subscriptions renew as the clock moves too). */
    const script: { amountMinor: number; next: ChargeResult[] } = { amountMinor: 0, next: [] };
    const network = scriptedSandbox(
      async (request, real) =>
        (request.amountMinor === script.amountMinor && script.next.shift()) || real.charge(request),
    );
    let inbox: SmtpInbox;
    let t: TestApp;
    let v: TestVendor;

    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        clock,
        gateways: { sandbox: network.gateway },
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'receipts@opentill.test', SMTP_SANDBOX_TO: 'customers' },
      });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });
    beforeEach(async () => {
      inbox.messages.length = 0;
      inbox.refusing = false;
      script.next = [];
      v = await t.newVendor('Acme Tools');
    });

    const work = () => runWorkerOnce(t.services);
    /** A link of an e-mail, pointed at the test server (e-mails carry BASE_URL). */
    const local = (url: string) => url.replace('http://opentill.test', t.url);
    const links = (mail: ParsedMail) => [...(mail.text ?? '').matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
    /** Follows every link of an e-mail: each opens (a page or a PDF), and the HTML part has the same ones. */
    const linksOpen = async (mail: ParsedMail) => {
      assert.ok(links(mail).length > 0);
      for (const link of links(mail)) {
        assert.ok(String(mail.html).includes(`href="${link}"`), `${link} is in the HTML too`);
        const res = await fetch(local(link));
        assert.equal(res.status, 200, `${link} opens`);
        await res.arrayBuffer();
      }
    };
    const only = (address: string) => {
      const mails = inbox.to(address);
      assert.equal(mails.length, 1, `one e-mail to ${address}, got: ${mails.map((m) => m.subject).join(' | ')}`);
      return mails[0]!;
    };
    const outbox = () => t.services.emails.list(v.scope(), 100);

    test('a purchase sends one receipt with the amounts, tax, licence key and working invoice and management links', async () => {
      const product = await v.product({
        type: 'ONETIME',
        name: 'Acme Studio',
        issuesLicences: true,
        prices: [
          { currency: 'EUR', value: 40 },
          { currency: 'USD', value: 44 },
        ],
      });
      const id = await v.buy(product.id, { email: 'ana@example.com', country: 'DE', currency: 'EUR' });
      await work();
      await work();
      const mail = only('ana@example.com');
      assert.equal(mail.subject, '[Test] Your receipt from Acme Tools');
      assert.deepEqual(mail.from?.value, [{ address: 'receipts@opentill.test', name: 'Acme Tools' }]);
      assert.equal(mail.replyTo?.value[0]?.address, 'owner@vendor.test');
      const { json } = await v.api(`/v1/transaction/${id}`);
      const entry = json.entries[0];
      const money = (value: string) => formatForBuyer(Math.round(Number(value) * 100), 'EUR', 'en-US');
      const net = (Number(entry.amountTotal) - Number(entry.taxAmount)).toFixed(2);
      assert.match(
        mail.text!,
        new RegExp(`Price +${money(net)}\nVAT 19% +${money(entry.taxAmount)}\nTotal +${money(entry.amountTotal)}\n`),
      );
      assert.match(mail.text!, /VAT 19%/);
      const key = await t.services.store.licences.keyOf(v.scope(), id);
      assert.ok(key && mail.text!.includes(key) && String(mail.html).includes(key), 'the licence key is in both parts');
      const [invoice, manage] = [
        links(mail).find((l) => l.includes('/invoice/'))!,
        links(mail).find((l) => l.includes('/manage/'))!,
      ];
      const pdf = await fetch(local(invoice));
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      const page = await fetch(local(manage));
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Acme Studio/);
      assert.equal((await outbox()).filter((e) => e.status === 'SENT').length, 1);
    });

    test('the management link lasts a week, is for that customer only, and a forged one is refused', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Widget' });
      await v.buy(product.id, { email: 'bo@example.com' });
      await v.buy(product.id, { email: 'cy@example.com' });
      await work();
      const manage = local(links(only('bo@example.com')).find((l) => l.includes('/manage/'))!);
      const token = manage.slice(manage.lastIndexOf('/') + 1);
      const page = await (await fetch(manage)).text();
      assert.match(page, /bo@example\.com/);
      assert.doesNotMatch(page, /cy@example\.com/);
      const [body, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, subject: 'cy@example.com' })).toString('base64url');
      assert.equal((await fetch(manage.replace(token, `${forged}.${signature}`))).status, 404);
      clock.advance(6 * DAY);
      assert.equal((await fetch(manage)).status, 200, 'still open six days later');
      clock.advance(1 * DAY + 1000);
      assert.equal((await fetch(manage)).status, 410, 'expired after a week');
      clock.advance(-7 * DAY - 1000);
    });

    test('a subscription with a trial: receipt, trial-ending notice 3 days before, renewal, then cancellation, each once', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Cloud',
        chargeFrequency: 'MONTHLY',
        trialDays: 14,
        prices: [{ currency: 'USD', value: 10 }],
      });
      const start = clock.now().getTime();
      const id = await v.buy(product.id, { email: 'di@example.com' });
      await work();
      assert.equal(only('di@example.com').subject, '[Test] Your Acme Cloud trial has started');
      clock.set(new Date(start + 11 * DAY + 3600_000));
      await work();
      await work();
      const notice = inbox.to('di@example.com').filter((m) => /trial ends/.test(m.subject!));
      assert.equal(notice.length, 1);
      assert.match(notice[0]!.text!, /ends on March 15, 2030/);
      await linksOpen(notice[0]!);
      clock.set(new Date(start + 14 * DAY + 60_000));
      await work();
      const renewed = inbox.to('di@example.com').filter((m) => m.subject === '[Test] Payment received: Acme Cloud');
      assert.equal(renewed.length, 1);
      assert.match(renewed[0]!.text!, /\$10\.00/);
      assert.equal((await fetch(local(links(renewed[0]!).find((l) => l.includes('/invoice/'))!))).status, 200);
      await t.services.transactions.cancel(v.scope(), id, 'CUSTOMER');
      await t.services.transactions.cancel(v.scope(), id, 'CUSTOMER');
      await work();
      const cancelled = inbox.to('di@example.com').filter((m) => /is cancelled/.test(m.subject!));
      assert.equal(cancelled.length, 1);
      assert.match(cancelled[0]!.text!, /You keep access until April 15, 2030/);
      await linksOpen(cancelled[0]!);
      assert.equal(inbox.to('di@example.com').length, 4);
    });

    test('a trial of 3 days or less gets no separate notice: its receipt already says when it ends', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Short',
        chargeFrequency: 'MONTHLY',
        trialDays: 2,
        prices: [{ currency: 'USD', value: 10 }],
      });
      await v.buy(product.id, { email: 'sho@example.com' });
      await work();
      clock.advance(DAY);
      await work();
      assert.deepEqual(
        inbox.to('sho@example.com').map((m) => m.subject),
        ['[Test] Your Acme Short trial has started'],
      );
      // In the checkout's words (common.trialThen): what is charged after the trial, and from when.
      assert.match(
        inbox.to('sho@example.com')[0]!.text!,
        /Then \$10\.00 every month from (\w+ \d+, 2030)\.\n\nCancel before \1 and you pay nothing\./,
      );
      assert.deepEqual((await outbox()).map((e) => [e.kind, e.status]).sort(), [
        ['RECEIPT', 'SENT'],
        ['TRIAL_ENDING', 'SKIPPED'],
      ]);
    });

    test('a yearly subscription gets one notice 7 days before it renews', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Yearly',
        chargeFrequency: 'YEARLY',
        prices: [{ currency: 'USD', value: 120 }],
      });
      const start = clock.now().getTime();
      await v.buy(product.id, { email: 'ed@example.com' });
      clock.set(new Date(start + 300 * DAY));
      await work();
      assert.equal(inbox.to('ed@example.com').length, 1, 'the receipt only: the renewal is two months away');
      clock.set(new Date(start + 360 * DAY));
      await work();
      await work();
      const notices = inbox.to('ed@example.com').filter((m) => /renews on/.test(m.subject!));
      assert.equal(notices.length, 1);
      const renews = new Date(start);
      renews.setUTCFullYear(renews.getUTCFullYear() + 1);
      assert.ok(
        notices[0]!.subject!.endsWith(
          `renews on ${renews.toLocaleDateString('en-US', { dateStyle: 'long', timeZone: 'UTC' })}`,
        ),
        notices[0]!.subject,
      );
    });

    test('a declined renewal says when the next try is and links to changing the card; one held by the bank asks to authenticate', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Monthly',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 20.17 }],
      });
      script.amountMinor = 2017;
      const start = clock.now().getTime();
      await v.buy(product.id, { email: 'fay@example.com' });
      script.next = [
        { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false },
      ];
      clock.set(new Date(start + 31 * DAY + 60_000));
      await work();
      const failed = inbox.to('fay@example.com').filter((m) => /payment for Acme Monthly failed/.test(m.subject!));
      assert.equal(failed.length, 1);
      assert.match(failed[0]!.text!, /\$20\.17/);
      assert.ok(failed[0]!.text!.includes(`try again on ${longDate(start + 32 * DAY + 60_000)}.`), failed[0]!.text);
      assert.match(failed[0]!.text!, /Update your card:\nhttp:\/\/opentill\.test\/sandbox\/manage\//);
      await linksOpen(failed[0]!);
      script.next = [
        { status: 'DECLINED', code: 'authentication_required', message: 'Authentication required.', permanent: false },
      ];
      clock.set(new Date(start + 34 * DAY + 60_000));
      await work();
      const held = inbox.to('fay@example.com').filter((m) => /Action required/.test(m.subject!));
      assert.equal(held.length, 1);
      assert.match(held[0]!.text!, /Confirm the payment:\nhttp/);
      assert.equal((await fetch(local(links(held[0]!).find((l) => l.includes('/manage/'))!))).status, 200);
    });

    test('a refund sends one e-mail with the amount and a working credit-note link', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Acme Pack', prices: [{ currency: 'USD', value: 15 }] });
      const id = await v.buy(product.id, { email: 'gus@example.com' });
      const refund = await v.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        body: {},
        headers: { 'idempotency-key': `r-${id}` },
      });
      assert.equal(refund.status, 200, refund.text);
      await work();
      const mails = inbox.to('gus@example.com').filter((m) => /Refund issued/.test(m.subject!));
      assert.equal(mails.length, 1);
      assert.match(mails[0]!.text!, /refunded \$15\.00 for Acme Pack/);
      const note = await fetch(local(links(mails[0]!).find((l) => l.includes('/invoice/'))!));
      assert.equal(note.status, 200);
    });

    test("the vendor's sender name, reply-to and turned-off kinds are followed", async () => {
      await t.services.catalog.updateVendorSettings(v.vendor.id, {
        emails: { senderName: 'Acme Billing', replyTo: 'help@acme.test', off: ['REFUNDED'] },
      });
      const product = await v.product({ type: 'ONETIME', name: 'Acme Mini', prices: [{ currency: 'USD', value: 5 }] });
      const id = await v.buy(product.id, { email: 'hal@example.com' });
      await v.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        body: {},
        headers: { 'idempotency-key': `r-${id}` },
      });
      const report = await work();
      assert.equal(report.emails.skipped, 1);
      const mail = only('hal@example.com');
      assert.deepEqual(mail.from?.value, [{ address: 'receipts@opentill.test', name: 'Acme Billing' }]);
      assert.equal(mail.replyTo?.value[0]?.address, 'help@acme.test');
      assert.deepEqual((await outbox()).map((e) => [e.kind, e.status]).sort(), [
        ['RECEIPT', 'SENT'],
        ['REFUNDED', 'SKIPPED'],
      ]);
    });

    test('while SMTP refuses nothing is lost; everything goes out once, with one Message-ID, when it accepts again', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Acme Lite', prices: [{ currency: 'USD', value: 5 }] });
      inbox.refusing = true;
      for (const who of ['ivy', 'jo', 'kim']) await v.buy(product.id, { email: `${who}@example.com` });
      const first = await work();
      assert.equal(first.emails.retried, 3);
      clock.advance(30_000);
      assert.equal((await work()).emails.sent + (await work()).emails.retried, 0, 'not tried again before its delay');
      clock.advance(31_000);
      assert.equal((await work()).emails.retried, 3);
      inbox.refusing = false;
      clock.advance(121_000);
      assert.equal((await work()).emails.sent, 3);
      await work();
      for (const who of ['ivy', 'jo', 'kim'])
        assert.match(only(`${who}@example.com`).messageId!, /^<TC-EM_[0-9A-Za-z]+@opentill\.test>$/);
      const rows = await outbox();
      assert.deepEqual(
        rows.map((e) => [e.status, e.tries]),
        [
          ['SENT', 3],
          ['SENT', 3],
          ['SENT', 3],
        ],
      );
    });

    test('a message refused for a day is given up and shown as failed; a mailbox that does not exist fails at once', async () => {
      const product = await v.product({ type: 'ONETIME', name: 'Acme Gone', prices: [{ currency: 'USD', value: 5 }] });
      inbox.unknownMailboxes.add('nobody@example.com');
      await v.buy(product.id, { email: 'nobody@example.com' });
      assert.equal((await work()).emails.failed, 1);
      inbox.refusing = true;
      await v.buy(product.id, { email: 'lou@example.com' });
      for (let hour = 0; hour <= 26; hour++) {
        await work();
        clock.advance(3600_000);
      }
      inbox.refusing = false;
      await work();
      assert.equal(inbox.to('lou@example.com').length + inbox.to('nobody@example.com').length, 0);
      const rows = await outbox();
      const lou = rows.find((e) => e.recipient === 'lou@example.com')!;
      assert.equal(lou.status, 'FAILED');
      assert.match(lou.lastError!, /451/);
      assert.ok(lou.tries >= 20, `tried ${lou.tries} times over the day`);
      assert.match(rows.find((e) => e.recipient === 'nobody@example.com')!.lastError!, /550/);
      clock.advance(-27 * 3600_000);
    });

    test('no e-mail carries a card number or a credential', async () => {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name: 'Acme Safe',
        chargeFrequency: 'MONTHLY',
        issuesLicences: true,
      });
      const id = await v.buy(product.id, { email: 'max@example.com' });
      await t.services.transactions.cancel(v.scope(), id, 'CUSTOMER');
      await work();
      assert.equal(inbox.to('max@example.com').length, 2);
      const secrets = [
        '4242424242424242',
        '424242',
        v.credentials.sandbox.authorization,
        v.credentials.production.authorization,
        t.config.secret,
      ];
      for (const mail of inbox.messages) {
        const whole = `${mail.subject}\n${mail.text}\n${mail.html}\n${mail.headerLines.map((h) => h.line).join('\n')}`;
        for (const secret of secrets)
          assert.ok(!whole.includes(secret), `${mail.subject} does not carry ${secret.slice(0, 6)}…`);
      }
    });
  });
}

test('by default a sandbox e-mail goes to the vendor, saying whom it was meant for; a production one to the customer', async () => {
  const inbox = await startSmtpInbox();
  const t = await startTestApp('sqlite', { env: { SMTP_URL: inbox.url, SMTP_FROM: 'receipts@opentill.test' } });
  try {
    const v = await t.newVendor('Acme Tools');
    for (const environment of ['sandbox', 'production'] as const) {
      const product = await v.product({ type: 'ONETIME', name: `Acme ${environment}` }, environment);
      await v.buy(product.id, { email: 'stranger@example.com' }, environment);
    }
    await runWorkerOnce(t.services);
    const [sandbox] = inbox.to('owner@vendor.test');
    assert.equal(inbox.to('owner@vendor.test').length, 1);
    assert.equal(sandbox!.subject, '[Test] Your receipt from Acme Tools');
    assert.match(sandbox!.text!, /Sandbox: sent to you, the seller, in place of stranger@example\.com\./);
    assert.deepEqual(
      inbox.to('stranger@example.com').map((m) => m.subject),
      ['Your receipt from Acme Tools'],
    );
  } finally {
    await t.close();
    await inbox.close();
  }
});

for (const kind of await storeKinds()) {
  test(`without SMTP_URL nothing is queued or sent (${kind})`, async () => {
    const t = await startTestApp(kind);
    try {
      assert.equal(t.services.emails.enabled, false);
      const v = await t.newVendor();
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY' });
      const id = await v.buy(product.id);
      await t.services.transactions.cancel(v.scope(), id, 'CUSTOMER');
      const report = await runWorkerOnce(t.services);
      assert.deepEqual(report.emails, { queued: 0, sent: 0, retried: 0, failed: 0, skipped: 0, more: false });
      assert.deepEqual(await t.services.emails.list(v.scope()), []);
    } finally {
      await t.close();
    }
  });
}
