import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.ts';
import { sandboxGateway } from '../src/gateways/sandbox-gateway.ts';
import { buildApp } from '../src/http/app.ts';
import { createServices } from '../src/services.ts';
import { startBillingWorker } from '../src/worker.ts';
import { freshDatabase, type StoreKind } from './databases.ts';

/**
 * One vendor moves its sandbox clock years ahead with a daily subscription while the billing
 * worker runs as in `opentill serve` and another vendor keeps reading its own transactions, sandbox
 * and production, over HTTP. The reader is a thread of its own, so a blocked event loop in the
 * server shows in its timings instead of also stopping its clock. Used by
 * test/billing/sandbox-clock-isolation.test.ts (behaviour) and bench/clock-isolation.ts (figures).
 */
export interface CatchUpRun {
  /** Milliseconds each of the other vendor's reads took, as its client saw them. */
  reads: number[];
  /** The other vendor's reads that did not answer 200. */
  failures: string[];
  /** Milliseconds each `POST /sandbox/v1/clock/advance` of the moving vendor took. */
  advances: number[];
  /** The advance answers' `billing`. */
  advanceBilling: { pending: number; oldestDue: string | null; caughtUp: boolean }[];
  /** From the first move until `GET /sandbox/v1/clock` said caught up (0 when nothing moved). */
  catchUpMs: number;
  /** Payments of the daily subscription (its first one included), its nextCharge, and the sandbox's time at the end. */
  payments: number;
  nextCharge: string | null;
  sandboxNow: string;
  /** Errors the billing worker reported. */
  workerErrors: unknown[];
}

const YEAR_SECONDS = 365 * 86_400;
const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2035 };

/** The reader: `connections` loops of GET, `gapMs` apart, until told to stop; then posts its timings. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const { targets, connections, gapMs } = workerData;
let stopping = false;
parentPort.on('message', () => { stopping = true; });
const reads = [];
const failures = [];
async function loop(first) {
  for (let n = first; !stopping; n++) {
    const target = targets[n % targets.length];
    const started = performance.now();
    try {
      const res = await fetch(target.url, { headers: { authorization: target.authorization } });
      await res.arrayBuffer();
      reads.push(performance.now() - started);
      if (res.status !== 200) failures.push(res.status + ' ' + target.url);
    } catch (err) {
      failures.push(String(err) + ' ' + target.url);
    }
    await new Promise((resume) => setTimeout(resume, gapMs));
  }
}
parentPort.postMessage('reading');
Promise.all(Array.from({ length: connections }, (_, i) => loop(i))).then(() => parentPort.postMessage({ reads, failures }));
`;

/**
 * With `years` > 0 the moving vendor advances its clock one year per call, `years` times back to
 * back, then polls its clock until billing has caught up; with `years` 0 nothing moves and the
 * reader reads for `quietMs` (a baseline).
 */
export async function catchUpUnderLoad(
  kind: StoreKind,
  options: { years: number; quietMs?: number; connections?: number; gapMs?: number; batchesPerClock?: number },
): Promise<CatchUpRun> {
  const { database, drop } = await freshDatabase(kind);
  const config = loadConfig({
    OPENTILL_SECRET: 'catch-up-secret-catch-up-secret-0123456789',
    OPENTILL_DATA_DIR: '/tmp/opentill-test-data',
    BASE_URL: 'http://opentill.test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_CREDENTIAL: '1000000',
    RATE_LIMIT_PER_ADDRESS: '1000000',
    AUTH_FAILURES_PER_MINUTE: '100000',
  });
  const services = createServices(config, { database, gateways: { production: sandboxGateway(database.kysely) } });
  const app = await buildApp(services, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const workerErrors: unknown[] = [];
  const worker = startBillingWorker(services, {
    intervalMs: config.billing.intervalSeconds * 1000,
    batchesPerClock: options.batchesPerClock,
    onError: (err) => workerErrors.push(err),
  });
  try {
    const mover = await services.catalog.createVendor({ name: 'Mover', email: 'mover@vendor.test' });
    const moverScope = { vendorId: mover.id, environment: 'sandbox' as const };
    const moverAuth = (await services.credentials.issue(moverScope)).authorization;
    const daily = await services.catalog.createProduct(moverScope, {
      type: 'SUBSCRIPTION',
      chargeFrequency: 'DAILY',
      name: 'Daily',
      prices: [{ currency: 'USD', value: 1 }],
    });
    const subscription = await buy(moverScope, daily.id);

    const reader = await services.catalog.createVendor({ name: 'Reader', email: 'reader@vendor.test' });
    // It sells in production too, which needs the seller's identity (docs/decisions.md §24).
    const identity = { sellerName: 'Reader Ltd', address: ['1 Test Street'], country: 'US', taxId: 'T-1' };
    await services.catalog.updateVendorSettings(reader.id, identity);
    const targets = [];
    for (const environment of ['sandbox', 'production'] as const) {
      const scope = { vendorId: reader.id, environment };
      const { authorization } = await services.credentials.issue(scope);
      const product = await services.catalog.createProduct(scope, {
        type: 'ONETIME',
        name: 'Book',
        prices: [{ currency: 'USD', value: 20 }],
      });
      const id = await buy(scope, product.id);
      targets.push({ url: `${url}${environment === 'sandbox' ? '/sandbox' : ''}/v1/transaction/${id}`, authorization });
    }

    const thread = new Worker(READER, {
      eval: true,
      workerData: { targets, connections: options.connections ?? 2, gapMs: options.gapMs ?? 5 },
    });
    const finished = new Promise<{ reads: number[]; failures: string[] }>((resolve, reject) => {
      thread.on(
        'message',
        (message) => message !== 'reading' && resolve(message as { reads: number[]; failures: string[] }),
      );
      thread.once('error', reject);
    });
    await new Promise((reading) => thread.once('message', reading));

    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${url}/sandbox${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: moverAuth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const advances: number[] = [];
    const advanceBilling: CatchUpRun['advanceBilling'] = [];
    const started = performance.now();
    let catchUpMs = 0;
    if (options.years > 0) {
      for (let year = 0; year < options.years; year++) {
        const t = performance.now();
        advanceBilling.push((await api('/v1/clock/advance', { seconds: YEAR_SECONDS })).billing);
        advances.push(performance.now() - t);
      }
      while (!(await api('/v1/clock')).billing.caughtUp) await new Promise((resume) => setTimeout(resume, 50));
      catchUpMs = performance.now() - started;
    } else {
      await new Promise((resume) => setTimeout(resume, options.quietMs ?? 5000));
    }
    thread.postMessage('stop');
    const { reads, failures } = await finished;
    await thread.terminate();

    const clock = await api('/v1/clock');
    const tx = await api(`/v1/transaction/${subscription}`);
    const listed = (await api('/v1/transactions/customer%40example.com')) as {
      id: string;
      nextCharge: string | null;
    }[];
    return {
      reads,
      failures,
      advances,
      advanceBilling,
      catchUpMs,
      payments: (tx.entries as { type: string }[]).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT').length,
      nextCharge: listed.find((t) => t.id === subscription)?.nextCharge ?? null,
      sandboxNow: clock.now as string,
      workerErrors,
    };
  } finally {
    await worker.stop();
    await app.close();
    await drop();
  }

  async function buy(
    scope: { vendorId: string; environment: 'sandbox' | 'production' },
    productId: string,
  ): Promise<string> {
    const result = await services.purchases.purchase(scope, {
      productId,
      email: 'customer@example.com',
      country: 'US',
      card: CARD,
    });
    if (result.status !== 'PAID') throw new Error(`purchase not paid: ${JSON.stringify(result)}`);
    return result.transaction.id;
  }
}

/** The value below which `share` (0 to 1) of `values` lie. */
export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}
