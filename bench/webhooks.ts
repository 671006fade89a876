/**
 * `npm run bench:webhooks`: how fast the webhook outbox delivers (docs/decisions.md §27), on SQLite and
 * on PostgreSQL. BENCH_EVENTS events of as many transactions wait for one endpoint on loopback, whose
 * receiver answers 200 at once; the worker's `runDue` sends them all (claimed under leases, signed,
 * 16 at a time, each outcome written). Beside it, in the same run and to the same receiver, the
 * reference: the same number of the same bodies signed and POSTed 16 at a time through the same
 * transport with nothing written, the least a delivery costs. Prints deliveries per second of each and
 * outbox / reference.
 *
 * Environment:
 *   BENCH_EVENTS=5000      events to deliver
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1          40 events (test/bench/bench-smoke.test.ts)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.ts';
import { webhookTransport } from '../src/outbound/webhook-transport.ts';
import { createServices } from '../src/services.ts';
import { freshDatabase, type StoreKind } from '../support/databases.ts';
import { count, log, logMachine, setting, storesToMeasure } from './settings.ts';

const EVENTS = setting('BENCH_EVENTS', 5_000, 40);
const LANES = 16;

/** A receiver that answers every POST with 200 as soon as its body is in. */
async function receiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

async function measure(kind: StoreKind): Promise<string> {
  const store = await freshDatabase(kind);
  const sink = await receiver();
  const services = createServices(
    loadConfig({ OPENTILL_SECRET: 'bench-webhooks-secret-0123456789-0123456789', LOG_LEVEL: 'silent' }),
    { database: store.database },
  );
  try {
    const vendor = await services.catalog.createVendor({ name: 'Bench Hooks', email: 'owner@bench.test' });
    const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
    const { secret } = await services.webhooks.add(scope, sink.url);
    const product = await services.catalog.createProduct(scope, {
      name: 'Thing',
      type: 'ONETIME',
      prices: [{ currency: 'USD', value: 9 }],
    } as never);
    await services.purchases.purchase(scope, {
      productId: product.id,
      email: 'buyer@example.com',
      country: 'US',
      card: { number: '4242424242424242', expMonth: 12, expYear: 2035 },
    });
    // The one real event, copied for as many transactions: none waits for another.
    const [event] = await services.store.webhooks.log(scope, { limit: 1 });
    const copies = Array.from({ length: EVENTS - 1 }, (_, i) => ({
      ...event!,
      id: `${event!.id}${i.toString(36)}`,
      transactionId: `${event!.transactionId}-${i}`,
    }));
    for (let i = 0; i < copies.length; i += 500) await services.store.webhooks.insertEvents(copies.slice(i, i + 500));
    const [body] = (await services.webhooks.log(scope, { limit: 1 })).map((e) => e.body);

    const transport = webhookTransport();
    const signer = new Webhook(secret);
    let next = 0;
    const lane = async () => {
      while (next++ < EVENTS) {
        const now = new Date();
        const headers = {
          'content-type': 'application/json',
          'webhook-id': 'evt_reference',
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign('evt_reference', now, body!),
        };
        await transport.post({
          url: sink.url,
          headers,
          body: body!,
          timeoutMs: 10_000,
          allowPrivate: true,
          allowLinkLocal: false,
        });
      }
    };
    const referenceStarted = performance.now();
    await Promise.all(Array.from({ length: LANES }, lane));
    const reference = EVENTS / ((performance.now() - referenceStarted) / 1000);

    const before = sink.received();
    const started = performance.now();
    const report = await services.webhooks.runDue();
    const rate = report.delivered / ((performance.now() - started) / 1000);
    if (report.delivered !== EVENTS || sink.received() - before !== EVENTS)
      throw new Error(`delivered ${report.delivered} of ${EVENTS} (${sink.received() - before} received)`);
    return (
      `${kind.padEnd(8)} ${count(EVENTS)} events  outbox ${count(rate)} deliveries/s  ` +
      `reference ${count(reference)} signed POSTs/s  outbox / reference ${(rate / reference).toFixed(2)}`
    );
  } finally {
    await services.close();
    await sink.close();
    await store.drop();
  }
}

logMachine(`bench:webhooks: ${count(EVENTS)} webhook deliveries to a receiver on loopback, ${LANES} at a time`);
for (const kind of storesToMeasure()) log(await measure(kind));
