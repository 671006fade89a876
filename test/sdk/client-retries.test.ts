import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConflictError, InvalidRequestError, ServerError } from '../../packages/client/src/index.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { recordingFetch, sdkFor, type Sent } from './sdk-world.ts';

/**
 * The SDK's retries against a running opentill: one Idempotency-Key per call, the same on each of its
 * retries, so the server does the work once; Retry-After waited for; 4xx answers final.
 */
const unavailable = (retryAfter: string) =>
  new Response(JSON.stringify({ error: 'SERVICE_UNAVAILABLE', message: 'down for a moment', requestId: 'req-503' }), {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
  });
const keys = (sent: Sent[]) => sent.map((s) => s.headers['idempotency-key']);
const gaps = (sent: Sent[]) => sent.slice(1).map((s, i) => s.at - sent[i]!.at);

for (const kind of await storeKinds()) {
  describe(`the SDK's retries against opentill (${kind})`, () => {
    /** The sandbox's network: vaulted charges answer what `script` says, else what the real sandbox does. */
    const script: Array<ChargeResult['status']> = [];
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      const next = script.shift();
      return next === 'UNKNOWN' ? { status: 'UNKNOWN' } : real.charge(request);
    });
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { gateways: { sandbox: network.gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      network.use(sandboxGateway(t.services.database.kysely));
    });
    const paidOnce = async (value = 30) => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value }] });
      return v.buy(product.id);
    };
    const refundsOf = async (id: string) =>
      (await v.api(`/v1/transaction/${id}`)).json.entries.filter((e: { type: string }) => e.type.endsWith('REFUND'))
        .length as number;

    test('a refund whose answer is lost is retried with the same Idempotency-Key and refunds once', async () => {
      const id = await paidOnce();
      const { fetch, sent } = recordingFetch({ lose: (index) => index === 0 });
      const result = await sdkFor(t, v, { fetch, retry: { baseDelayMs: 10 } }).refundTransaction(id, { amount: 5 });
      assert.equal(sent.length, 2);
      assert.equal(result.status, 'REFUNDED');
      assert.equal(new Set(keys(sent)).size, 1, `one key for the call: ${keys(sent).join(' ')}`);
      assert.equal(result.idempotencyKey, keys(sent)[0]);
      assert.equal(await refundsOf(id), 1, 'the retry replayed the first refund instead of making a second');
      const again = await sdkFor(t, v).refundTransaction(id, { amount: 5 });
      assert.notEqual(again.idempotencyKey, result.idempotencyKey, 'a new call has a new key');
      assert.equal(await refundsOf(id), 2);
    });

    test('a 503 is retried after its Retry-After, with the same key; a GET too', async () => {
      const id = await paidOnce();
      const { fetch, sent } = recordingFetch({ interpose: (_, index) => (index === 0 ? unavailable('1') : undefined) });
      const sdk = sdkFor(t, v, { fetch, retry: { baseDelayMs: 10 } });
      const cancelled = await sdk.markTransactionProcessed(id);
      assert.equal(cancelled.processed, true);
      assert.deepEqual(
        sent.map((s) => s.status),
        [503, 200],
      );
      assert.equal(new Set(keys(sent)).size, 1);
      assert.ok(gaps(sent)[0]! >= 990, `waited ${gaps(sent)[0]} ms for Retry-After: 1`);

      const reads = recordingFetch({ interpose: (_, index) => (index < 2 ? unavailable('0') : undefined) });
      const read = await sdkFor(t, v, { fetch: reads.fetch, retry: { baseDelayMs: 10 } }).readTransaction(id);
      assert.equal(read.id, id);
      assert.deepEqual(
        reads.sent.map((s) => s.status),
        [503, 503, 200],
      );
      assert.equal(reads.sent[0]!.headers['idempotency-key'], undefined, 'a GET carries no key');
    });

    test('retries are bounded: a Retry-After past maxDelayMs and the last retry throw the 503 with its request id', async () => {
      const id = await paidOnce();
      const far = recordingFetch({ interpose: () => unavailable('120') });
      const error = await sdkFor(t, v, { fetch: far.fetch })
        .refundTransaction(id)
        .catch((e: unknown) => e);
      assert.ok(error instanceof ServerError);
      assert.equal(error.retryAfterSeconds, 120);
      assert.equal(error.requestId, 'req-503');
      assert.equal(far.sent.length, 1, 'a two-minute Retry-After is not waited for');

      const always = recordingFetch({ interpose: () => unavailable('0') });
      const sdk = sdkFor(t, v, { fetch: always.fetch, retry: { maxRetries: 2, baseDelayMs: 1 } });
      const last = await sdk.refundTransaction(id).catch((e: unknown) => e);
      assert.ok(last instanceof ServerError);
      assert.equal(always.sent.length, 3);
      assert.equal((last as ServerError).idempotencyKey, keys(always.sent)[0]);
      assert.equal(await refundsOf(id), 0);
    });

    test('a 4xx is final: a refused body and a key conflict are sent once', async () => {
      const id = await paidOnce();
      const { fetch, sent } = recordingFetch();
      const sdk = sdkFor(t, v, { fetch, retry: { baseDelayMs: 1 } });
      const refused = await sdk.refundTransaction(id, { amount: 'ten' }).catch((e: unknown) => e);
      assert.ok(refused instanceof InvalidRequestError, String(refused));
      assert.equal(sent.length, 1);

      await sdk.refundTransaction(id, { amount: 1 }, { idempotencyKey: `conflict-${kind}` });
      const conflict = await sdk
        .refundTransaction(id, { amount: 2 }, { idempotencyKey: `conflict-${kind}` })
        .catch((e: unknown) => e);
      assert.ok(conflict instanceof ConflictError);
      assert.equal(conflict.code, 'IDEMPOTENCY_CONFLICT');
      assert.equal(sent.length, 3);
    });

    test('a vaulted charge the provider has not confirmed: PENDING with its key, then 409 PAYMENT_PENDING waited out by Retry-After, charged once', async () => {
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      const { fetch, sent } = recordingFetch();
      const sdk = sdkFor(t, v, { fetch });
      const body = { prices: [{ currency: 'USD', value: 7 }] };
      script.push('UNKNOWN', 'UNKNOWN');
      const pending = await sdk.chargeVaulted(id, body);
      assert.equal(pending.status, 'PENDING');
      assert.equal(sent[0]!.status, 202);

      const charged = await sdk.chargeVaulted(id, body, { idempotencyKey: pending.idempotencyKey });
      assert.equal(charged.status, 'SUCCESS');
      assert.deepEqual(
        sent.map((s) => s.status),
        [202, 409, 200],
      );
      assert.equal(new Set(keys(sent)).size, 1);
      assert.ok(gaps(sent)[1]! >= 4900, `waited ${gaps(sent)[1]} ms for PAYMENT_PENDING's Retry-After: 5`);
      const entries = (await v.api(`/v1/transaction/${id}`)).json.entries as Array<{ type: string }>;
      assert.deepEqual(
        entries.map((e) => e.type),
        ['VAULTED_PAYMENT'],
      );
    });
  });
}
