import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { changedTransaction } from '../../src/http/presenters.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { webhookWorld, type WebhookWorld } from '../helpers/webhook-world.ts';

/**
 * Signed webhooks beside the feed (docs/decisions.md §27): a scripted day of one subscription
 * (purchase, renewal, partial refund, cancel) reaches a receiver on loopback in order, each event
 * signed so that the standardwebhooks package verifies it, carrying the feed's record, the change
 * flag and the ledger entry; the feed is not touched by delivery, nor delivery by the feed.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`webhook delivery (${kind})`, () => {
    let w: WebhookWorld;
    let receiver: Receiver;
    let secret: string;

    before(async () => {
      w = await webhookWorld(kind);
      receiver = await startReceiver();
      const added = await w.services.webhooks.add(w.scope(), `${receiver.url}/hooks`);
      secret = added.secret;
      receiver.useSecret(secret);
    });
    after(async () => {
      await w.close();
      await receiver.close();
    });

    test('a scripted day arrives in order, signed, with the feed record, the flag and the ledger entry', async () => {
      receiver.received.length = 0;
      const id = await w.subscription('day@example.com');
      w.clock.advance(31 * DAY);
      await w.services.billing.runDue({ sandboxVendorId: w.vendor.id });
      const refund = await w.services.refunds.refund(w.scope(), id, { request: { amount: 5 } });
      assert.equal(refund.status, 'REFUNDED');
      await w.services.transactions.cancel(w.scope(), id, 'CUSTOMER');
      await w.services.webhooks.runDue();
      const got = receiver.accepted().filter((r) => r.json.data.id === id);
      assert.deepEqual(
        got.map((r) => r.json.type),
        ['transaction.new', 'transaction.renewed', 'transaction.refunded', 'transaction.cancelled'],
      );
      for (const r of got) {
        assert.ok(r.verified, 'standardwebhooks verifies the signature');
        assert.equal(r.headers['webhook-id'], r.json.id);
        assert.equal(r.json.data.eventId, r.json.id);
        assert.match(r.json.id, /^evt_/);
        assert.equal(r.path, '/hooks');
      }
      assert.equal(new Set(got.map((r) => r.json.id)).size, 4, 'each event its own id');
      const [bought, renewed, refunded, cancelled] = got.map((r) => r.json.data);
      assert.equal(bought.changeFlag, 'CHANGED_STATUS_NEW');
      assert.equal(bought.changedStatus, 'CHANGED_STATUS_NEW');
      assert.equal(bought.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(bought.ledgerEntry.type, 'SUBSCRIPTION_PAYMENT');
      assert.equal(bought.ledgerEntry.amountTotal, '20.00');
      assert.equal(renewed.changeFlag, 'CHANGED_STATUS_RENEWED');
      assert.equal(renewed.ledgerEntry.type, 'SUBSCRIPTION_PAYMENT');
      assert.notEqual(renewed.ledgerEntry.id, bought.ledgerEntry.id, "the renewal's own entry");
      assert.equal(refunded.changeFlag, 'CHANGED_STATUS_REFUNDED');
      assert.deepEqual(refunded.refund, { amount: '5.00', currency: 'USD', partial: true });
      assert.equal(refunded.ledgerEntry.type, 'SUBSCRIPTION_REFUND');
      assert.equal(refunded.ledgerEntry.amountTotal, '-5.00');
      assert.equal(cancelled.changeFlag, 'CHANGED_STATUS_CANCELLED');
      assert.equal(cancelled.ledgerEntry, null, 'a cancel books no entry');
      // The fields of GET /v1/changed-transactions, as that transaction was at each change.
      const now = await w.store.transactions.find(w.scope(), id);
      const fields = Object.keys(changedTransaction(now!)).sort();
      for (const data of [bought, renewed, refunded, cancelled])
        for (const field of fields) assert.ok(field in data, `${field} in every event`);
      assert.notEqual(bought.nextCharge, renewed.nextCharge, 'each event shows the transaction as it was then');
    });

    test('a signature over other bytes, or under another secret, does not verify', async () => {
      receiver.received.length = 0;
      await w.subscription('sig@example.com');
      await w.services.webhooks.runDue();
      const [r] = receiver.accepted();
      assert.ok(r);
      const headers = r.headers as Record<string, string>;
      assert.doesNotThrow(() => new Webhook(secret).verify(r.body, headers));
      assert.throws(() => new Webhook(secret).verify(`${r.body} `, headers));
      const other = (await w.services.webhooks.add(w.scope(), `${receiver.url}/other`)).secret;
      await w.services.webhooks.remove(w.scope(), (await w.services.webhooks.list(w.scope()))[1]!.id);
      assert.throws(() => new Webhook(other).verify(r.body, headers));
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    });

    test('the feed and delivery are independent: marking processed sends nothing, sending marks nothing', async () => {
      receiver.received.length = 0;
      const id = await w.subscription('feed@example.com');
      await w.services.webhooks.runDue();
      assert.equal(receiver.accepted().length, 1);
      const listed = await w.services.transactions.listChanged(w.scope(), 1000);
      assert.ok(
        listed.transactions.some((t) => t.id === id),
        'still in the feed after delivery',
      );
      await w.services.transactions.markProcessed(w.scope(), id);
      await w.services.webhooks.runDue();
      assert.equal(receiver.received.length, 1, 'marking processed sends nothing');
      const events = await w.events();
      assert.equal(events.filter((e) => e.transactionId === id).length, 1);
    });

    test('a vendor without an endpoint, or in the other environment, gets no events', async () => {
      const other = await w.services.catalog.createVendor({ name: 'Quiet Ltd', email: 'q@quiet.test' });
      const product = await w.services.catalog.createProduct({ vendorId: other.id, environment: 'sandbox' }, {
        name: 'Thing',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 9 }],
      } as never);
      await w.services.purchases.purchase(
        { vendorId: other.id, environment: 'sandbox' },
        {
          productId: product.id,
          email: 'x@example.com',
          country: 'US',
          card: { number: '4242424242424242', expMonth: 12, expYear: 2035 },
        },
      );
      assert.equal(
        (await w.services.webhooks.log({ vendorId: other.id, environment: 'sandbox' }, { limit: 10 })).length,
        0,
      );
      const rows = await w.services.database.kysely
        .selectFrom('webhook_events')
        .select('vendor_id')
        .where('vendor_id', '=', other.id)
        .execute();
      assert.equal(rows.length, 0);
      assert.equal((await w.events('production')).length, 0, 'the sandbox endpoint hears nothing of production');
    });
  });
}
