import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../packages/client/src/index.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The SDK's verifyWebhook on opentill's own deliveries: an endpoint on loopback receives what the
 * worker sends for a sale and a partial refund, and the SDK verifies each body as received with the
 * endpoint's whsec_ secret, typed as a WebhookEvent; a body changed on the way, or another endpoint's
 * secret, does not verify.
 */
interface Delivery {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

async function receiver() {
  const received: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

for (const kind of await storeKinds()) {
  describe(`verifyWebhook on opentill's deliveries (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    let hooks: Awaited<ReturnType<typeof receiver>>;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor();
      hooks = await receiver();
    });
    after(async () => {
      await hooks.close();
      await t.close();
    });

    test('a sale and a partial refund arrive signed; the SDK verifies each and reads it as a typed event', async () => {
      const { secret } = await t.services.webhooks.add(v.scope(), hooks.url);
      assert.match(secret, /^whsec_/);
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
      const id = await v.buy(product.id);
      await t.services.refunds.refund(v.scope(), id, { request: { amount: 10 } });
      await t.services.webhooks.runDue();

      const events: WebhookEvent[] = [];
      for (const delivery of hooks.received) events.push(await verifyWebhook(delivery.body, delivery.headers, secret));
      assert.deepEqual(
        events.map((e) => e.type),
        ['transaction.new', 'transaction.refunded'],
      );
      const [sold, refunded] = events;
      if (sold?.type !== 'transaction.new' || refunded?.type !== 'transaction.refunded') return;
      assert.equal(sold.data.id, id);
      assert.equal(sold.data.changeFlag, 'CHANGED_STATUS_NEW');
      assert.equal(sold.data.eventId, sold.id);
      assert.equal(sold.data.ledgerEntry?.type, 'ONETIME_PAYMENT');
      assert.deepEqual(refunded.data.refund, { amount: '10.00', currency: 'USD', partial: true });

      const [first] = hooks.received;
      const changed = Buffer.from(first!.body.toString().replace('"ONETIME"', '"VAULTED"'));
      await assert.rejects(
        verifyWebhook(changed, first!.headers, secret),
        (e) => e instanceof WebhookVerificationError && e.reason === 'NO_MATCHING_SIGNATURE',
      );
      const other = await t.services.webhooks.add(v.scope(), `${hooks.url}/other`);
      await assert.rejects(verifyWebhook(first!.body, first!.headers, other.secret), /no signature matches/);
    });
  });
}
