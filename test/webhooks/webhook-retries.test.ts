import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { storeKinds } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { webhookWorld, type WebhookWorld } from '../helpers/webhook-world.ts';

/**
 * When a receiver fails (docs/decisions.md §27): tries after 5 s, 5 min, 30 min, 2 h, 5 h, then every
 * 10 h, the last exactly 3 days after the first, then given up; a later event of a transaction waits
 * for the earlier one while other transactions' go; an endpoint failing for 3 days is disabled and its
 * vendor told by e-mail; a try that hangs ends at its time limit; a redirect is not followed; a leased
 * event waits for its lease; a replay sends the event again under its id.
 */
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

for (const kind of await storeKinds()) {
  describe(`webhook retries (${kind})`, () => {
    let w: WebhookWorld;
    let receiver: Receiver;

    before(async () => {
      receiver = await startReceiver();
      // One try at a time: which of two tries an endpoint heard last is then the batch's order.
      w = await webhookWorld(kind, { webhooks: { timeoutMs: 300, concurrency: 1 } });
    });
    after(async () => {
      await w.close();
      await receiver.close();
    });
    let endpointId: string;
    beforeEach(async () => {
      for (const e of await w.services.webhooks.list(w.scope())) await w.services.webhooks.remove(w.scope(), e.id);
      w.clock.set(new Date('2030-03-01T09:00:00.000Z'));
      receiver.received.length = 0;
      receiver.answerWith(() => ({ status: 200 }));
      const added = await w.services.webhooks.add(w.scope(), `${receiver.url}/hooks`);
      endpointId = added.endpoint.id;
      receiver.useSecret(added.secret);
    });
    const eventsOf = async (transactionId: string) =>
      (await w.events()).filter((e) => e.transactionId === transactionId && e.endpointId === endpointId);

    test('a failing receiver is tried on the schedule until 3 days after the first try, then the event is given up', async () => {
      receiver.answerWith(() => ({ status: 500 }));
      const id = await w.subscription('retry@example.com');
      const first = w.clock.now().getTime();
      const tries: number[] = [];
      for (let guard = 0; guard < 40; guard++) {
        const [event] = await eventsOf(id);
        if (event!.status !== 'PENDING') break;
        if (event!.tries > 0) {
          // A millisecond early sends nothing.
          w.clock.set(new Date(Date.parse(event!.nextTryAt) - 1));
          const before = receiver.received.length;
          await w.services.webhooks.runDue();
          assert.equal(receiver.received.length, before, `nothing before ${event!.nextTryAt}`);
          w.clock.set(new Date(event!.nextTryAt));
        }
        await w.services.webhooks.runDue();
        tries.push(w.clock.now().getTime() - first);
      }
      const waits = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H, 10 * H, 10 * H, 10 * H, 10 * H];
      const expected = [0];
      for (const wait of waits) expected.push(expected.at(-1)! + wait);
      expected.push(72 * H);
      assert.deepEqual(tries, expected);
      const [event] = await eventsOf(id);
      assert.equal(event!.status, 'FAILED');
      assert.equal(event!.tries, expected.length);
      assert.equal(event!.lastStatus, 500);
      assert.equal(receiver.received.length, expected.length);
      assert.ok(
        receiver.received.every((r) => r.headers['webhook-id'] === event!.id),
        'one id on every try',
      );
    });

    test("a later event of a transaction waits for the earlier one, given up or delivered; other transactions' go on", async () => {
      receiver.answerWith((got) => ({
        status: got.json.type === 'transaction.new' && got.json.data.email === 'first@example.com' ? 500 : 200,
      }));
      const id = await w.subscription('first@example.com');
      await w.services.transactions.cancel(w.scope(), id, 'CUSTOMER');
      const other = await w.subscription('other@example.com');
      await w.services.webhooks.runDue();
      w.clock.advance(10 * H);
      await w.services.webhooks.runDue();
      const sent = receiver.received.map((r) => `${r.json.data.email} ${r.json.type}`);
      assert.ok(!sent.includes('first@example.com transaction.cancelled'), 'the cancel waits while the purchase fails');
      assert.ok(sent.includes('other@example.com transaction.new'), "another transaction's event goes");
      assert.deepEqual(
        (await eventsOf(other)).map((e) => e.status),
        ['DELIVERED'],
      );
      // Delivered at last: the cancel follows in the same run.
      receiver.answerWith(() => ({ status: 200 }));
      w.clock.advance(10 * H);
      await w.services.webhooks.runDue();
      const mine = receiver
        .accepted()
        .filter((r) => r.json.data.id === id)
        .map((r) => r.json.type);
      assert.deepEqual(mine, ['transaction.new', 'transaction.cancelled']);
    });

    test('an event given up lets the next of its transaction go', async () => {
      receiver.answerWith((got) => ({
        status: got.json.type === 'transaction.new' && got.json.data.email === 'giveup@example.com' ? 500 : 200,
      }));
      const id = await w.subscription('giveup@example.com');
      await w.services.transactions.cancel(w.scope(), id, 'CUSTOMER');
      await w.services.webhooks.runDue();
      for (let day = 1; day <= 4; day++) {
        w.clock.advance(24 * H);
        // Another sale each day goes through, so the endpoint is not failing for 3 days.
        await w.subscription(`daily${day}@example.com`);
        await w.services.webhooks.runDue();
        const expected = day < 3 ? ['PENDING', 'PENDING'] : ['FAILED', 'DELIVERED'];
        assert.deepEqual(
          (await eventsOf(id)).map((e) => e.status),
          expected,
          `day ${day}`,
        );
      }
      assert.equal((await w.services.webhooks.list(w.scope()))[0]!.enabled, true);
    });

    test('an endpoint failing for 3 days is disabled, its vendor told by e-mail; one success on the way resets the count', async () => {
      w.mails.length = 0;
      receiver.answerWith((got) => ({ status: got.json.data.email === 'up@example.com' ? 200 : 503 }));
      await w.subscription('down1@example.com');
      await w.services.webhooks.runDue();
      // Day 2: a success (sent first: its event is newer to the outbox), then the failure again.
      w.clock.advance(48 * H);
      await w.subscription('up@example.com');
      await w.services.webhooks.runDue();
      w.clock.advance(25 * H);
      await w.subscription('down2@example.com');
      await w.services.webhooks.runDue();
      const enabled = async () => (await w.services.webhooks.list(w.scope()))[0]!.enabled;
      for (let h = 73; h < 113; h += 10) {
        w.clock.advance(10 * H);
        await w.services.webhooks.runDue();
      }
      assert.equal(await enabled(), true, 'at 113 h, 65 h since the failures began again');
      assert.equal(w.mails.length, 0);
      w.clock.advance(10 * H);
      await w.services.webhooks.runDue();
      const [endpoint] = await w.services.webhooks.list(w.scope());
      assert.equal(endpoint!.enabled, false);
      assert.match(endpoint!.disabledReason!, /3 days/);
      assert.equal(w.mails.length, 1);
      assert.equal(w.mails[0]!.to, 'owner@hooked.test');
      assert.match(w.mails[0]!.text, /disabled/);
      // Nothing more is written for it, nor sent.
      const before = receiver.received.length;
      const written = (await w.events()).filter((e) => e.endpointId === endpoint!.id).length;
      // Another vendor's endpoint is enabled, so the outbox does look for endpoints.
      const other = await w.services.catalog.createVendor({ name: 'Other Ltd', email: 'o@other.test' });
      await w.services.webhooks.add({ vendorId: other.id, environment: 'sandbox' }, 'http://127.0.0.1:9/hooks');
      const after = await w.subscription('after@example.com');
      w.clock.advance(10 * H);
      await w.services.webhooks.runDue();
      assert.equal(receiver.received.length, before);
      assert.equal((await w.events()).filter((e) => e.endpointId === endpoint!.id).length, written);
      assert.equal((await w.events()).filter((e) => e.transactionId === after).length, 0);
      // Enabled again once the receiver works: what waited goes out, and the failures are forgotten.
      receiver.answerWith(() => ({ status: 200 }));
      await assert.rejects(w.services.webhooks.enable(w.scope('production'), endpoint!.id), /not found/);
      await w.services.webhooks.enable(w.scope(), endpoint!.id);
      const [again] = await w.services.webhooks.list(w.scope());
      assert.deepEqual([again!.enabled, again!.failingSince, again!.disabledReason], [true, null, null]);
      await w.services.webhooks.runDue();
      assert.ok(
        receiver.accepted().some((r) => r.json.data.email === 'down2@example.com'),
        'the waiting event went out',
      );
      await assert.rejects(w.services.webhooks.enable(w.scope(), endpoint!.id), /not found/, 'only a disabled one');
    });

    test('a receiver that hangs is given up on at the time limit and tried again later', async () => {
      receiver.answerWith(() => 'hang');
      const id = await w.subscription('hang@example.com');
      const started = Date.now();
      await w.services.webhooks.runDue();
      assert.ok(Date.now() - started < 5000);
      const [event] = await eventsOf(id);
      assert.equal(event!.status, 'PENDING');
      assert.match(event!.lastError!, /no answer within 0.3 s/);
      receiver.answerWith(() => ({ status: 204 }));
      w.clock.advance(5 * S);
      await w.services.webhooks.runDue();
      assert.equal((await eventsOf(id))[0]!.status, 'DELIVERED');
    });

    test('a redirect is an answer, not followed', async () => {
      receiver.answerWith((got) =>
        got.path === '/hooks' ? { status: 302, location: `${receiver.url}/elsewhere` } : { status: 200 },
      );
      const id = await w.subscription('redirect@example.com');
      await w.services.webhooks.runDue();
      assert.deepEqual(
        receiver.received.map((r) => r.path),
        ['/hooks'],
      );
      const [event] = await eventsOf(id);
      assert.equal(event!.status, 'PENDING');
      assert.equal(event!.lastStatus, 302);
    });

    test('an event another worker leased waits until the lease runs out, then goes', async () => {
      const id = await w.subscription('lease@example.com');
      const now = w.clock.now();
      const leased = await w.store.webhooks.claim({
        now: now.toISOString(),
        owner: 'dead-worker',
        leaseUntil: new Date(now.getTime() + 60 * S).toISOString(),
        limit: 100,
      });
      assert.ok(leased.some((e) => e.transactionId === id));
      await w.services.webhooks.runDue();
      assert.equal(receiver.received.length, 0);
      w.clock.advance(60 * S);
      await w.services.webhooks.runDue();
      assert.equal(receiver.received.length, 0, 'the lease holds to its end');
      w.clock.advance(1);
      await w.services.webhooks.runDue();
      assert.deepEqual(
        receiver.accepted().map((r) => r.json.data.id),
        [id],
      );
      assert.equal(
        await w.store.webhooks.settle(leased[0]!.id, 'dead-worker', {
          status: 'FAILED',
          tries: 9,
          nextTryAt: '',
          giveUpAt: '',
          lastStatus: null,
          lastError: 'late',
          lastTryAt: null,
          deliveredAt: null,
        }),
        false,
        'the dead worker settles nothing',
      );
    });

    test('a replay sends the event again under the same id', async () => {
      const id = await w.subscription('replay@example.com');
      await w.services.webhooks.runDue();
      const [event] = await eventsOf(id);
      assert.equal(event!.status, 'DELIVERED');
      await w.services.webhooks.replay(w.scope(), event!.id);
      await w.services.webhooks.runDue();
      assert.equal(receiver.accepted().length, 2);
      const [a, b] = receiver.accepted();
      assert.equal(a!.headers['webhook-id'], b!.headers['webhook-id']);
      assert.equal(a!.body, b!.body);
      assert.ok(b!.verified);
      await assert.rejects(
        w.services.webhooks.replay({ vendorId: 'TC-VE_other', environment: 'sandbox' }, event!.id),
        /not found/,
      );
    });
  });
}
