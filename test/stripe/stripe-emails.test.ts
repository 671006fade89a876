import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { STRIPE_EVENTS } from '../../src/gateways/stripe-setup.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { storeKinds } from '../helpers/test-app.ts';

/**
 * Customer e-mails of production payments through Stripe (the stand-in): the receipt of a checkout,
 * one refund e-mail for a refund made in Stripe's dashboard however often its events come, and a
 * renewal the bank holds for 3-D Secure: one "action required" e-mail whose link opens the page where
 * the customer confirms it, then one "renewed" e-mail once it is paid, page and event alike.
 */
for (const kind of await storeKinds()) {
  describe(`customer e-mails of Stripe payments (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    let inbox: SmtpInbox;
    before(async () => {
      inbox = await startSmtpInbox();
      w = await startStripeWorld(kind, {
        clock,
        now: () => clock.now(),
        billing: { unknownRetryMs: 0 },
        env: { SMTP_URL: inbox.url, SMTP_FROM: 'receipts@opentill.test' },
      });
    });
    after(async () => {
      await w?.close();
      await inbox.close();
    });

    const send = () => w.app.services.emails.runDue(Infinity);
    const replayAll = async () => {
      for (const event of w.standin.events().filter((e) => (STRIPE_EVENTS as readonly string[]).includes(e.type)))
        await w.standin.deliver(event.id, { times: 2 });
      await w.app.services.processorEvents.runDue();
    };
    const subjects = (address: string) => inbox.to(address).map((m) => m.subject);
    const local = (url: string) => url.replace('http://opentill.test', w.app.url);

    test('a production receipt (no test marking), and one e-mail for a refund made in the dashboard', async () => {
      const p = await w.vendor.product(
        { type: 'ONETIME', name: 'Studio', prices: [{ currency: 'USD', value: 40 }] },
        'production',
      );
      const run = await w.checkout(p.id, { email: 'dash@example.com' });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      await send();
      assert.deepEqual(subjects('dash@example.com'), ['Your receipt from Test Vendor']);
      assert.doesNotMatch(inbox.to('dash@example.com')[0]!.text!, /sandbox/);
      const attempt = await w.app.services.store.chargeAttempts.latestFor(run.transactionId!, 'PURCHASE');
      const intent = (await w.stripe.paymentIntents.list({ limit: 100 })).data.find(
        (i) => i.metadata.opentill_attempt === attempt!.id,
      )!;
      await w.standin.refundFromDashboard(intent.id);
      clock.advance(60_000);
      await w.settleEvents();
      await replayAll();
      await send();
      await send();
      assert.deepEqual(subjects('dash@example.com'), ['Your receipt from Test Vendor', 'Refund issued: Studio']);
      assert.match(inbox.to('dash@example.com')[1]!.text!, /refunded \$40\.00 for Studio/);
    });

    test('a renewal held for 3-D Secure: one e-mail asks the customer to confirm it, its link opens the page to do so, and the paid renewal sends one e-mail', async () => {
      const p = await w.vendor.product(
        { type: 'SUBSCRIPTION', name: 'Cloud', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 8 }] },
        'production',
      );
      const run = await w.checkout(p.id, { email: 'held@example.com', card: '4000002760003184' });
      assert.equal(run.status, 200, run.html);
      const id = run.transactionId!;
      const due = (await w.app.services.store.transactions.find(w.vendor.scope('production'), id))!.nextCharge!;
      clock.set(new Date(Date.parse(due) + 1000));
      assert.equal((await w.app.services.billing.runDue()).declined, 1);
      await w.settleEvents();
      await send();
      const asked = inbox
        .to('held@example.com')
        .filter((m) => m.subject === 'Action required: confirm your payment for Cloud');
      assert.equal(asked.length, 1);
      assert.match(asked[0]!.text!, /confirm the payment of \$8\.00/);
      const link = /Confirm the payment:\n(\S+)/.exec(asked[0]!.text!)![1]!;
      const path = new URL(local(link)).pathname;
      const page = await (await fetch(`${w.app.url}${path}`)).text();
      assert.match(page, /Your bank asks you to confirm the payment of \$8\.00 for/);

      // The customer confirms it with the bank, as the management page's button does.
      const form = await w.confirmHeldPayment(path, id);
      await fetch(`${w.app.url}${path}`, form({ action: 'authenticated' }));
      clock.advance(60_000);
      await w.settleEvents();
      await replayAll();
      await send();
      assert.deepEqual(subjects('held@example.com'), [
        'Your receipt from Test Vendor',
        'Action required: confirm your payment for Cloud',
        'Payment received: Cloud',
      ]);
    });
  });
}
