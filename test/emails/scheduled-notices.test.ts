import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Notices of an upcoming charge (decisions §20): a yearly subscription is told 7 days before each
 * renewal, a trial 3 days before it ends. A notice is keyed by its subscription and the charge it
 * announces, so each renewal gets its own, year after year and across the turn of a year: exactly
 * once however often the worker runs, never suppressed by last year's, never sent twice. The worker
 * (`runWorkerOnce`) runs twice at every step, a minute apart, so each run scans for notices; the
 * e-mails go to a real SMTP server on loopback.
 */
const MINUTE = 60_000;

for (const kind of await storeKinds()) {
  describe(`scheduled notices across years (${kind})`, () => {
    const clock = fixedClock(new Date('2029-01-05T10:00:00.000Z'));
    let inbox: SmtpInbox;
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        clock,
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'notices@opentill.test', SMTP_SANDBOX_TO: 'customers' },
      });
    });
    // A vendor per test: the first one's sandbox clock runs ahead.
    beforeEach(async () => {
      v = await t.newVendor('Acme Years');
    });
    after(async () => {
      await t?.close();
      await inbox?.close();
    });

    /** The worker runs twice, a minute apart (each run looks for notices due): what it sends is the same as once. */
    async function work() {
      for (let i = 0; i < 2; i++) {
        clock.advance(MINUTE);
        const report = await runWorkerOnce(t.services);
        assert.deepEqual(report.errors, []);
        assert.equal(report.emails.failed + report.emails.retried, 0);
      }
    }
    const subjects = (address: string) => inbox.to(address).map((m) => m.subject!.replace(/^\[Test\] /, ''));
    async function yearly(email: string, name: string, trialDays?: number) {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name,
        chargeFrequency: 'YEARLY',
        trialDays,
        prices: [{ currency: 'USD', value: 120 }],
      } as never);
      return v.buy(product.id, { email });
    }
    const outboxOf = async (transactionId: string) =>
      (await t.services.emails.list(v.scope(), 500))
        .filter((e) => e.facts.transactionId === transactionId)
        .map((e) => [e.kind, e.status, e.facts.date ?? null]);

    test('a yearly subscription bought on 2029-01-05, its sandbox clock moved by the vendor: a notice 7 days before each renewal, 2030-01-05 and 2031-01-05, each once', async () => {
      const email = 'jan@example.com';
      const id = await yearly(email, 'Acme Annual');
      const to = async (iso: string, expect: string[]) => {
        const res = await v.api('/v1/clock/advance', { body: { to: iso } });
        assert.equal(res.status, 200, res.text);
        await work();
        assert.deepEqual(subjects(email), expect, `by ${iso}`);
      };
      await work();
      const receipt = 'Your receipt from Acme Years';
      const notice2030 = 'Your Acme Annual subscription renews on January 5, 2030';
      const renewed = 'Payment received: Acme Annual';
      const notice2031 = 'Your Acme Annual subscription renews on January 5, 2031';
      await to('2029-12-29T09:00:00.000Z', [receipt]);
      await to('2029-12-29T10:00:00.000Z', [receipt, notice2030]);
      await to('2029-12-31T23:59:00.000Z', [receipt, notice2030]);
      await to('2030-01-01T00:01:00.000Z', [receipt, notice2030]);
      await to('2030-01-05T10:00:00.000Z', [receipt, notice2030, renewed]);
      await to('2030-12-29T09:00:00.000Z', [receipt, notice2030, renewed]);
      await to('2030-12-29T10:00:00.000Z', [receipt, notice2030, renewed, notice2031]);
      await to('2031-01-01T00:01:00.000Z', [receipt, notice2030, renewed, notice2031]);
      await to('2031-01-05T10:00:00.000Z', [receipt, notice2030, renewed, notice2031, renewed]);
      const notices = (await outboxOf(id)).filter(([k]) => k === 'RENEWAL_UPCOMING');
      assert.deepEqual(notices.sort(), [
        ['RENEWAL_UPCOMING', 'SENT', '2030-01-05T10:00:00.000Z'],
        ['RENEWAL_UPCOMING', 'SENT', '2031-01-05T10:00:00.000Z'],
      ]);
    });

    test('a yearly subscription renewing on December 31 at 23:30: told on December 24 of 2030 and of 2031, each once, the new year in between changing nothing', async () => {
      clock.set(new Date('2029-12-31T23:30:00.000Z'));
      const email = 'dec@example.com';
      const id = await yearly(email, 'Acme Eve');
      const at = async (iso: string, expect: string[]) => {
        clock.set(new Date(iso));
        await work();
        assert.deepEqual(subjects(email), expect, `by ${iso}`);
      };
      await work();
      const receipt = 'Your receipt from Acme Years';
      const notice2030 = 'Your Acme Eve subscription renews on December 31, 2030';
      const renewed = 'Payment received: Acme Eve';
      const notice2031 = 'Your Acme Eve subscription renews on December 31, 2031';
      await at('2030-12-24T23:00:00.000Z', [receipt]);
      await at('2030-12-24T23:29:00.000Z', [receipt, notice2030]);
      await at('2030-12-31T23:29:00.000Z', [receipt, notice2030, renewed]);
      await at('2031-01-01T00:30:00.000Z', [receipt, notice2030, renewed]);
      await at('2031-12-24T23:00:00.000Z', [receipt, notice2030, renewed]);
      await at('2031-12-24T23:29:00.000Z', [receipt, notice2030, renewed, notice2031]);
      await at('2032-01-01T00:30:00.000Z', [receipt, notice2030, renewed, notice2031, renewed]);
      assert.deepEqual((await outboxOf(id)).filter(([k]) => k === 'RENEWAL_UPCOMING').length, 2);
    });

    test('a yearly trial ending on 2033-01-03: its trial notice on December 31 once, no renewal notice for the first charge, then a renewal notice a year on', async () => {
      clock.set(new Date('2032-12-20T08:00:00.000Z'));
      const email = 'trial@example.com';
      const id = await yearly(email, 'Acme Trial', 14);
      const at = async (iso: string, expect: string[]) => {
        clock.set(new Date(iso));
        await work();
        assert.deepEqual(subjects(email), expect, `by ${iso}`);
      };
      await work();
      const started = 'Your Acme Trial trial has started';
      const trialNotice = 'Your Acme Trial trial ends on January 3, 2033';
      const paid = 'Payment received: Acme Trial';
      const notice2034 = 'Your Acme Trial subscription renews on January 3, 2034';
      await at('2032-12-27T09:00:00.000Z', [started]);
      await at('2032-12-31T07:00:00.000Z', [started]);
      await at('2032-12-31T07:59:00.000Z', [started, trialNotice]);
      await at('2033-01-01T00:00:00.000Z', [started, trialNotice]);
      await at('2033-01-03T08:00:00.000Z', [started, trialNotice, paid]);
      await at('2033-12-27T07:00:00.000Z', [started, trialNotice, paid]);
      await at('2033-12-27T07:59:00.000Z', [started, trialNotice, paid, notice2034]);
      await at('2034-01-01T00:00:00.000Z', [started, trialNotice, paid, notice2034]);
      assert.deepEqual((await outboxOf(id)).filter(([k]) => k !== 'RECEIPT' && k !== 'RENEWED').sort(), [
        ['RENEWAL_UPCOMING', 'SENT', '2034-01-03T08:00:00.000Z'],
        ['TRIAL_ENDING', 'SENT', '2033-01-03T08:00:00.000Z'],
      ]);
    });
  });
}
