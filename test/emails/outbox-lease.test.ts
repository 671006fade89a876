import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The customer e-mail outbox's lease (decisions §20): a worker claims a message for 5 minutes. Worker
 * A claims and hangs on its SMTP server; nobody else takes the message while A's lease lasts; once it
 * has run out, worker B (another process on the same database, with its own SMTP connection) claims
 * it, sends it and records it. A's result, when it finally comes (sent, or refused and to be tried
 * again), is A's no longer to write: it never overwrites B's, whether B has finished or is still at
 * it; so nothing is sent a third time and the outbox says what B did.
 */
const LEASE_MS = 300_000;
const NOTHING = { queued: 0, sent: 0, retried: 0, failed: 0, skipped: 0, more: false };

for (const kind of await storeKinds()) {
  describe(`a worker whose outbox lease ran out (${kind})`, () => {
    const clock = fixedClock(new Date('2030-06-01T12:00:00.000Z'));
    const env = (inbox: SmtpInbox) => ({
      SMTP_URL: inbox.url,
      SMTP_FROM: 'receipts@opentill.test',
      SMTP_SANDBOX_TO: 'customers',
    });
    let inboxA: SmtpInbox;
    let inboxB: SmtpInbox;
    let a: TestApp;
    let b: TestApp;
    let v: TestVendor;
    before(async () => {
      [inboxA, inboxB] = await Promise.all([startSmtpInbox(), startSmtpInbox()]);
      a = await startTestApp(kind, { clock, env: env(inboxA) });
      b = await startTestApp(kind, { clock, env: env(inboxB), database: a.services.database });
    });
    after(async () => {
      await b?.close();
      await a?.close();
      await Promise.all([inboxA?.close(), inboxB?.close()]);
    });
    beforeEach(async () => {
      v = await a.newVendor('Lease Ltd');
      clock.advance(3600_000);
    });
    /** Holds a failed test left on: released, so no worker waits on its SMTP server for ever. */
    const holds: { release(outcome: 'accept' | 'refuse'): void }[] = [];
    afterEach(() => {
      for (const hold of holds.splice(0)) hold.release('refuse');
    });
    const hold = (inbox: SmtpInbox) => {
      const held = inbox.hold();
      holds.push(held);
      return held;
    };

    /** A purchase: its receipt is queued in the outbox, for the customer. */
    async function receiptFor(email: string) {
      const product = await v.product({
        type: 'ONETIME',
        name: 'Leased Thing',
        prices: [{ currency: 'USD', value: 7 }],
      });
      const id = await v.buy(product.id, { email });
      return () =>
        a.services.database.kysely
          .selectFrom('customer_emails')
          .select(['status', 'tries', 'last_error', 'next_try_at', 'sent_at', 'lease_owner', 'lease_until'])
          .where('transaction_id', '=', id)
          .executeTakeFirstOrThrow();
    }
    /** Worker A claims the receipt and hangs on its SMTP server, holding the message. */
    async function claimedAndHanging() {
      const held = hold(inboxA);
      const running = a.services.emails.runDue(Infinity);
      await held.arrived;
      return { hold: held, running };
    }
    /** Worker B runs while A's lease lasts, to its last second: it takes nothing. */
    async function whileTheLeaseLasts() {
      for (const step of [0, LEASE_MS - 1000]) {
        clock.advance(step);
        assert.deepEqual(
          await b.services.emails.runDue(Infinity),
          NOTHING,
          `A holds it: B takes nothing, ${step / 1000} s on`,
        );
      }
      clock.advance(2000);
    }
    /** Worker B, after A's lease ran out: claims the receipt and sends it. */
    async function afterTheLeaseB() {
      await whileTheLeaseLasts();
      return b.services.emails.runDue(Infinity);
    }

    test("A hangs past its lease; B sends and marks it SENT; A's late refusal does not put it back to be sent again", async () => {
      const email = 'late-refusal@example.com';
      const row = await receiptFor(email);
      const { hold, running } = await claimedAndHanging();
      assert.equal((await afterTheLeaseB()).sent, 1);
      const sentByB = await row();
      assert.deepEqual(
        [sentByB.status, Number(sentByB.tries), sentByB.sent_at, sentByB.lease_owner],
        ['SENT', 1, clock.now().toISOString(), null],
      );
      assert.equal(inboxB.to(email).length, 1);

      clock.advance(60_000);
      hold.release('refuse');
      await running;
      assert.deepEqual(await row(), sentByB, "B's record stands");
      // Much later, both workers run again: nothing is due, nothing more is sent.
      clock.advance(2 * 3600_000);
      for (const worker of [a, b]) assert.equal((await worker.services.emails.runDue(Infinity)).sent, 0);
      assert.equal(inboxA.to(email).length + inboxB.to(email).length, 1, 'the customer has it once');
    });

    test("A hangs past its lease; B sends and marks it SENT; A's late success does not overwrite B's record, and its copy has the same Message-ID", async () => {
      const email = 'late-success@example.com';
      const row = await receiptFor(email);
      const { hold, running } = await claimedAndHanging();
      assert.equal((await afterTheLeaseB()).sent, 1);
      const sentByB = await row();

      clock.advance(60_000);
      hold.release('accept');
      await running;
      assert.deepEqual(await row(), sentByB, "B's record stands: sent when B sent it");
      const [copyA, copyB] = [inboxA.to(email), inboxB.to(email)];
      assert.deepEqual([copyA.length, copyB.length], [1, 1], 'the one message sent twice at a lease running out');
      assert.equal(copyA[0]!.messageId, copyB[0]!.messageId, 'recognisable as one message');
      clock.advance(2 * 3600_000);
      for (const worker of [a, b]) assert.equal((await worker.services.emails.runDue(Infinity)).sent, 0);
    });

    test("A's late success while B is still at it does not overwrite B's outcome: B's refusal is recorded, and the message is tried again once", async () => {
      const email = 'late-while-held@example.com';
      const row = await receiptFor(email);
      const first = await claimedAndHanging();
      await whileTheLeaseLasts();
      const holdB = hold(inboxB);
      const runningB = b.services.emails.runDue(Infinity);
      await holdB.arrived;

      first.hold.release('accept');
      await first.running;
      const heldByB = await row();
      assert.equal(heldByB.status, 'PENDING', "A's success is not written: the message is B's now");
      assert.notEqual(heldByB.lease_owner, null);

      holdB.release('refuse');
      assert.equal((await runningB).retried, 1);
      const refusedByB = await row();
      assert.deepEqual(
        [refusedByB.status, Number(refusedByB.tries), refusedByB.sent_at, refusedByB.lease_owner],
        ['PENDING', 1, null, null],
      );
      assert.match(refusedByB.last_error ?? '', /451/);
      assert.equal(
        refusedByB.next_try_at,
        new Date(clock.now().getTime() + 60_000).toISOString(),
        "B's retry, a minute on",
      );

      clock.advance(61_000);
      assert.equal((await b.services.emails.runDue(Infinity)).sent, 1, 'tried again, and sent');
      assert.equal((await row()).status, 'SENT');
      assert.equal((await a.services.emails.runDue(Infinity)).sent, 0);
      assert.deepEqual([inboxA.to(email).length, inboxB.to(email).length], [1, 1]);
    });
  });
}
