import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { fixedClock } from '../../src/domain/clock.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Sign-in by e-mail and the management link a vendor sends (docs/decisions.md §34): a one-time link,
 * only to an address that bought from that vendor, the same answer whoever asks, rate limited, in the
 * customer's language; the link works once, not after its 30 minutes, and only in its environment.
 */
for (const kind of await storeKinds()) {
  describe(`portal sign-in by e-mail (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-02T08:00:00.000Z'));
    let inbox: SmtpInbox;
    let t: TestApp;
    let v: TestVendor;
    let plan: string;

    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        clock,
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'shop@opentill.test', SMTP_SANDBOX_TO: 'customers' },
      });
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });
    beforeEach(async () => {
      inbox.messages.length = 0;
      v = await t.newVendor('Acme Tools');
      plan = (
        await v.product({
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          name: 'Team plan',
          prices: [{ currency: 'USD', value: 9 }],
        } as any)
      ).id;
    });

    const signInPath = (vendorId = v.vendor.id) => `/sandbox/manage/sign-in/${vendorId}`;
    const ask = (email: string, headers: Record<string, string> = {}, query = '') =>
      fetch(`${t.url}${signInPath()}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ email }),
      });
    /** The next e-mail to `address`, waited for: the route answers before it is sent. */
    const mailTo = async (address: string): Promise<ParsedMail> => {
      for (let i = 0; i < 200; i++) {
        const found = inbox.to(address)[0];
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no e-mail to ${address}`);
    };
    const linkIn = (mail: ParsedMail) =>
      /https?:\/\/\S+\/manage\/open\/\S+/.exec(mail.text ?? '')![0].replace('http://opentill.test', t.url);
    const open = (url: string) => fetch(url, { method: 'POST', redirect: 'manual' });

    test('a buyer gets a one-time link that opens their purchases once', async () => {
      await v.buy(plan, { email: 'ann@example.com' });
      const res = await ask('Ann@Example.com');
      assert.equal(res.status, 200);
      assert.match(await res.text(), /If ann@example\.com has purchases with Acme Tools, a link to them is on its way/);
      const mail = await mailTo('ann@example.com');
      assert.equal(mail.subject, '[Test] Your link to your purchases from Acme Tools');
      const link = linkIn(mail);
      assert.ok((mail.html || '').includes(link.split('/').at(-1)!), 'the HTML part has the same link');

      // Opening the link (a mail scanner's GET) does not use it up; the button does.
      const shown = await fetch(link);
      assert.equal(shown.status, 200);
      assert.match(await shown.text(), /Open my purchases/);
      const first = await open(link);
      assert.equal(first.status, 303);
      const page = await fetch(new URL(first.headers.get('location')!, link));
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Team plan/);

      // A double click lands on the page too; a minute later the link is spent.
      assert.equal((await open(link)).status, 303);
      clock.advance(60_000);
      const again = await open(link);
      clock.advance(-60_000);
      assert.equal(again.status, 410);
      assert.match(await again.text(), /This link has been used or has expired/);
    });

    test('an address with no purchase gets the same answer and no e-mail; no link is stored', async () => {
      await v.buy(plan, { email: 'ann@example.com' });
      const stranger = await ask('nobody@example.com');
      const buyer = await ask('ann@example.com');
      const strip = (text: string) => text.replace(/nonce-[^']+'|nonce="[^"]+"/g, '').replace(/\S+@example\.com/g, '@');
      assert.equal(stranger.status, buyer.status);
      assert.equal(strip(await stranger.text()), strip(await buyer.text()));
      await mailTo('ann@example.com');
      assert.equal(await t.services.portal.requestSignIn(v.scope(), 'nobody@example.com', null), 'NO_PURCHASES');
      assert.equal(inbox.to('nobody@example.com').length, 0);
      // Another vendor's buyer is not this vendor's.
      const other = await t.newVendor('Other Shop');
      const theirs = await other.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] } as any);
      await other.buy(theirs.id, { email: 'bob@example.com' });
      assert.equal(await t.services.portal.requestSignIn(v.scope(), 'bob@example.com', null), 'NO_PURCHASES');
      assert.equal(
        await t.services.portal.requestSignIn(v.scope('production'), 'ann@example.com', null),
        'NO_PURCHASES',
      );
    });

    test('the link works within its 30 minutes, not after, and not in the other environment', async () => {
      await v.buy(plan, { email: 'cat@example.com' });
      const link = async () => {
        inbox.messages.length = 0;
        assert.equal(await t.services.portal.requestSignIn(v.scope(), 'cat@example.com', null), 'SENT');
        return linkIn(await mailTo('cat@example.com'));
      };
      const first = await link();
      const token = first.split('/').at(-1)!;
      assert.equal((await open(`${t.url}/manage/open/${token}`)).status, 410, 'a sandbox link at production');
      assert.equal((await open(first)).status, 303, 'the production try did not use it up');

      const late = await link();
      const lastMoment = await link();
      clock.advance(30 * 60_000 - 1);
      assert.equal((await open(lastMoment)).status, 303);
      clock.advance(1);
      assert.equal((await open(late)).status, 410);
      clock.advance(-30 * 60_000);
    });

    test('the e-mail and the pages speak the language the customer asked in', async () => {
      await v.buy(plan, { email: 'dora@example.com' });
      const res = await ask('dora@example.com', { 'accept-language': 'de-DE,de;q=0.9' });
      assert.match(await res.text(), /<html lang="de"/);
      const mail = await mailTo('dora@example.com');
      assert.match(mail.subject ?? '', /Acme Tools/);
      assert.doesNotMatch(mail.subject ?? '', /Your link/);
      const link = linkIn(mail);
      assert.match(link, /\?locale=de$/);
      const arabic = await fetch(`${t.url}${signInPath()}?locale=ar`);
      assert.match(await arabic.text(), /<html lang="ar" dir="rtl"/);
    });

    test('asking is limited per address, whoever asks, and refused with Retry-After', async () => {
      await v.buy(plan, { email: 'eve@example.com' });
      const answers: number[] = [];
      for (let i = 0; i < 6; i++) answers.push((await ask('eve@example.com')).status);
      assert.deepEqual(answers, [200, 200, 200, 200, 200, 429]);
      const limited = await ask('EVE@example.com');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 60);
      // Another vendor's page counts for the same inbox.
      const other = await t.newVendor('Other Shop');
      const res = await fetch(`${t.url}${signInPath(other.vendor.id)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'eve@example.com' }),
      });
      assert.equal(res.status, 429);
    });

    test('a bad address, an unknown vendor and an unknown link are clear pages, not errors', async () => {
      const bad = await ask('not-an-address');
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /Enter a valid e-mail address/);
      assert.equal((await fetch(`${t.url}/sandbox/manage/sign-in/TC-VE_nope`)).status, 404);
      assert.equal((await fetch(`${t.url}/sandbox/manage/sign-in/..%2f..`)).status, 404);
      assert.equal((await open(`${t.url}/sandbox/manage/open/${'A'.repeat(43)}`)).status, 410);
      assert.equal((await open(`${t.url}/sandbox/manage/open/short`)).status, 410);
    });

    test('sendManagementLink e-mails the buyer a link that opens their page, in the language they bought in', async () => {
      const id = await v.buy(plan, { email: 'fay@example.com', locale: 'ja' } as any);
      const sent = await t.services.portal.sendManagementLink(v.scope(), id);
      assert.deepEqual(sent, { status: 'SENT', to: 'fay@example.com' });
      const mail = await mailTo('fay@example.com');
      assert.match(mail.html || '', /<html lang="ja"/);
      const url = /https?:\/\/\S+\/manage\/\S+/.exec(mail.text ?? '')![0].replace('http://opentill.test', t.url);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Team plan/);
      const other = await t.newVendor('Other Shop');
      await assert.rejects(t.services.portal.sendManagementLink(other.scope(), id), /not found/i);
    });
  });

  describe(`portal sign-in without e-mail (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor('Quiet Shop');
    });
    after(() => t.close());

    test('says sign-in by e-mail is not available, and sends nothing', async () => {
      const page = await fetch(`${t.url}/sandbox/manage/sign-in/${v.vendor.id}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Sign-in by e-mail is not available here/);
      const posted = await fetch(`${t.url}/sandbox/manage/sign-in/${v.vendor.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'ann@example.com' }),
      });
      assert.match(await posted.text(), /data-testid="sign-in-off"/);
      assert.equal(await t.services.portal.requestSignIn(v.scope(), 'ann@example.com', null), 'OFF');
      const product = await v.product({ type: 'ONETIME' } as any);
      const id = await v.buy(product.id, { email: 'ann@example.com' });
      assert.deepEqual(await t.services.portal.sendManagementLink(v.scope(), id), { status: 'OFF' });
    });
  });
}
