import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The customer's e-mails on the dunning schedule (docs/decisions.md §15: a declined renewal is tried
 * again 1, 3, 5 and 7 days after its due date; after the last decline the subscription ends). Every
 * decline is an event of its own: the first, the second, ... each sends its own PAYMENT_FAILED e-mail
 * naming the next try, and the last one says the subscription has ended; a decline the bank holds
 * for the customer's authentication sends ACTION_REQUIRED instead, each time. None is taken for a
 * duplicate of an earlier one (of this period or the last), and none goes twice however often the
 * worker runs: here twice at every step, a minute apart.
 */
const DAY = 86_400_000;
const longDate = (ms: number) => new Date(ms).toLocaleDateString('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const declined = (code: 'card_declined' | 'authentication_required'): ChargeResult => ({
  status: 'DECLINED',
  code,
  message: 'Declined.',
  permanent: false,
});

for (const kind of await storeKinds()) {
  describe(`a decline's own e-mail, each time (${kind})`, () => {
    const clock = fixedClock(new Date('2030-03-01T09:00:00.000Z'));
    /** The answers for the next charges of one amount, in order; other amounts are charged as the sandbox does. */
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
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'billing@opentill.test', SMTP_SANDBOX_TO: 'customers' },
      });
      network.use(sandboxGateway(t.services.database.kysely, () => clock.now()));
    });
    after(async () => {
      await t?.close();
      await inbox?.close();
    });
    beforeEach(async () => {
      v = await t.newVendor('Dunning Ltd');
      script.next = [];
    });

    /** The worker runs twice at `at`, a minute apart. */
    async function workAt(at: number) {
      clock.set(new Date(at));
      for (let i = 0; i < 2; i++) {
        const report = await runWorkerOnce(t.services);
        assert.equal(report.emails.failed + report.emails.retried, 0);
        clock.advance(60_000);
      }
    }
    async function subscribed(email: string, name: string, amountMinor: number) {
      const product = await v.product({
        type: 'SUBSCRIPTION',
        name,
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: amountMinor / 100 }],
      } as never);
      script.amountMinor = amountMinor;
      const start = clock.now().getTime();
      const id = await v.buy(product.id, { email });
      const due = Date.parse((await t.services.store.transactions.find(v.scope(), id))!.nextCharge!);
      return { id, start, due };
    }
    const mails = (address: string) =>
      inbox.to(address).map((m) => ({ subject: m.subject!.replace(/^\[Test\] /, ''), text: m.text! }));
    const status = async (id: string) => (await t.services.store.transactions.find(v.scope(), id))!;

    test('declined on the due date and on days 1, 3 and 5: four PAYMENT_FAILED e-mails, each naming its next try; the last decline on day 7: one saying it has ended', async () => {
      const email = 'every-try@example.com';
      const { id, due } = await subscribed(email, 'Acme Dunned', 2017);
      script.next = Array.from({ length: 5 }, () => declined('card_declined'));
      const failed = 'Your payment for Acme Dunned failed';
      const nextTries = [1, 3, 5, 7].map((day) => due + day * DAY);
      for (const [i, day] of [0, 1, 3, 5].entries()) {
        await workAt(due + day * DAY);
        const sent = mails(email).slice(1);
        assert.deepEqual(
          sent.map((m) => m.subject),
          Array(i + 1).fill(failed),
          `after the try on day ${day}: one e-mail for each decline so far`,
        );
        assert.ok(
          sent[i]!.text.includes(`We will try again on ${longDate(nextTries[i]!)}.`),
          `day ${day}: ${sent[i]!.text}`,
        );
        assert.match(sent[i]!.text, /\$20\.17/);
        assert.equal((await status(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE');
      }
      await workAt(due + 7 * DAY);
      const sent = mails(email).slice(1);
      assert.deepEqual(
        sent.map((m) => m.subject),
        [failed, failed, failed, failed, 'Your Acme Dunned subscription has ended'],
      );
      assert.match(sent[4]!.text, /after several tries, so it has ended/);
      assert.doesNotMatch(sent[4]!.text, /try again/);
      const tx = await status(id);
      assert.deepEqual([tx.status, tx.whoCanceled], ['SUBSCRIPTION_STATUS_CANCELLED', 'NEXT_CHARGE_FAILED']);
      await workAt(due + 30 * DAY);
      assert.equal(mails(email).length, 6, 'the receipt and five, nothing more');
      const rows = (await t.services.emails.list(v.scope(), 100)).filter((e) => e.kind === 'PAYMENT_FAILED');
      assert.deepEqual(
        rows.map((e) => e.status),
        Array(5).fill('SENT'),
      );
    });

    test('held by the bank for authentication on every try: an ACTION_REQUIRED e-mail for each, the last without a next try', async () => {
      const email = 'held-every-time@example.com';
      const { id, due } = await subscribed(email, 'Acme Held', 3033);
      script.next = Array.from({ length: 5 }, () => declined('authentication_required'));
      const action = 'Action required: confirm your payment for Acme Held';
      for (const [i, day] of [0, 1, 3, 5, 7].entries()) {
        await workAt(due + day * DAY);
        const sent = mails(email).slice(1);
        assert.deepEqual(
          sent.map((m) => m.subject),
          Array(i + 1).fill(action),
          `after the try on day ${day}`,
        );
        const next = [1, 3, 5, 7][i];
        if (next === undefined) assert.doesNotMatch(sent[i]!.text, /we will try again/);
        else
          assert.ok(
            sent[i]!.text.includes(`we will try again on ${longDate(due + next * DAY)}.`),
            `day ${day}: ${sent[i]!.text}`,
          );
      }
      assert.equal((await status(id)).status, 'SUBSCRIPTION_STATUS_CANCELLED');
      assert.equal(
        mails(email).filter((m) => /failed|ended/.test(m.subject)).length,
        0,
        'no PAYMENT_FAILED for a held payment',
      );
    });

    test('declines of both kinds in one period: each try sends the e-mail of its own kind, once', async () => {
      const email = 'mixed@example.com';
      const { due } = await subscribed(email, 'Acme Mixed', 4044);
      script.next = [declined('card_declined'), declined('authentication_required'), declined('card_declined')];
      for (const day of [0, 1, 3]) await workAt(due + day * DAY);
      assert.deepEqual(
        mails(email)
          .slice(1)
          .map((m) => m.subject),
        [
          'Your payment for Acme Mixed failed',
          'Action required: confirm your payment for Acme Mixed',
          'Your payment for Acme Mixed failed',
        ],
      );
    });

    test("next period's first decline sends its own e-mail, not taken for the last period's first", async () => {
      const email = 'two-periods@example.com';
      const { id, due } = await subscribed(email, 'Acme Twice', 5055);
      script.next = [declined('card_declined')];
      await workAt(due);
      await workAt(due + DAY);
      const renewed = (await status(id)).nextCharge!;
      script.next = [declined('card_declined')];
      await workAt(Date.parse(renewed));
      assert.deepEqual(
        mails(email)
          .slice(1)
          .map((m) => m.subject),
        ['Your payment for Acme Twice failed', 'Payment received: Acme Twice', 'Your payment for Acme Twice failed'],
      );
      assert.ok(mails(email)[3]!.text.includes(`We will try again on ${longDate(Date.parse(renewed) + DAY)}.`));
    });
  });
}
