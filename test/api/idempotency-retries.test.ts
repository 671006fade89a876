import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import type { Database } from '../../src/store/database.ts';
import { scriptedSandbox } from '../helpers/scripted-gateway.ts';
import { startTestApp, storeKinds, type ApiResponse, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * What an Idempotency-Key's first answer means for its retries (docs/decisions.md, "Idempotency-Key"):
 * a failure of ours (5xx) changed nothing and leaves the key free; a refusal (4xx) is final and is
 * replayed byte for byte whatever happened since; a duplicate that arrives while the first request
 * is still running is told to come back, on SQLite as on PostgreSQL.
 */

/** Every UPDATE of a transaction row fails until `healUpdates`: the database failing under a request. */
async function breakUpdates(database: Database) {
  if (database.dialect === 'sqlite') {
    await sql`create trigger fault_transaction_update before update on transactions begin select raise(abort, 'injected fault'); end`.execute(
      database.kysely,
    );
    return;
  }
  await sql`create or replace function fault_transaction_update() returns trigger as $$ begin raise exception 'injected fault'; end $$ language plpgsql`.execute(
    database.kysely,
  );
  await sql`create trigger fault_transaction_update before update on transactions for each row execute function fault_transaction_update()`.execute(
    database.kysely,
  );
}

async function healUpdates(database: Database) {
  if (database.dialect === 'sqlite')
    await sql`drop trigger if exists fault_transaction_update`.execute(database.kysely);
  else await sql`drop trigger if exists fault_transaction_update on transactions`.execute(database.kysely);
}

function assertError(res: ApiResponse, status: number, error: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.error, error, res.text);
}

for (const kind of await storeKinds()) {
  describe(`Idempotency-Key after a failure or a refusal (${kind})`, () => {
    const clock = fixedClock(new Date('2030-07-01T09:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    let counter = 0;
    const newKey = () => `retry-${kind}-${++counter}`;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor();
    });
    after(async () => {
      await healUpdates(t.services.database);
      await t.close();
    });

    const paidOnetime = async () =>
      v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] })).id);
    const read = async (id: string) => (await v.api(`/v1/transaction/${id}`)).json;

    test('a key whose first answer was a 500 is free again: the retry with the same key and body runs and saves the payload', async () => {
      const id = await paidOnetime();
      const key = newKey();
      const update = () =>
        v.api(`/v1/transaction/${id}`, { body: { payload: 'order-4711' }, headers: { 'idempotency-key': key } });

      await breakUpdates(t.services.database);
      let failed: ApiResponse;
      try {
        failed = await update();
      } finally {
        await healUpdates(t.services.database);
      }
      assertError(failed, 500, 'INTERNAL_ERROR');
      assert.equal(failed.headers.get('idempotent-replayed'), null);
      assert.equal((await read(id)).payload, null, 'the failed request changed nothing');

      const retried = await update();
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.headers.get('idempotent-replayed'), null, 'run again, not the 500 replayed');
      assert.equal(retried.json.payload, 'order-4711');
      assert.equal((await read(id)).payload, 'order-4711');

      // Now the key has a final answer: the 200 is what it replays.
      const replayed = await update();
      assert.equal(replayed.status, 200);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal(replayed.text, retried.text);
    });

    test('a key whose first answer was a 400 replays that 400 byte for byte, with idempotent-replayed, after the transaction changed', async () => {
      const id = await paidOnetime();
      const key = newKey();
      const tooLong = { payload: 'x'.repeat(5000) };
      const first = await v.api(`/v1/transaction/${id}`, { body: tooLong, headers: { 'idempotency-key': key } });
      assertError(first, 400, 'PAYLOAD_TOO_LONG');
      assert.equal(first.headers.get('idempotent-replayed'), null);

      clock.advance(1000);
      const changed = await v.api(`/v1/transaction/${id}`, {
        body: { payload: 'changed in between' },
        headers: { 'idempotency-key': newKey() },
      });
      assert.equal(changed.status, 200, changed.text);

      const again = await v.api(`/v1/transaction/${id}`, { body: tooLong, headers: { 'idempotency-key': key } });
      assert.equal(again.status, 400);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text, 'the same bytes, the first requestId included');
      assert.equal((await read(id)).payload, 'changed in between');
    });

    test('a refund refused in the trial (400) is replayed under its key after the first charge, and refunds nothing; a new key refunds', async () => {
      clock.set(new Date('2030-07-01T09:00:00.000Z'));
      const product = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        trialDays: 7,
        prices: [{ currency: 'USD', value: 15 }],
      });
      const id = await v.buy(product.id);
      const key = newKey();
      const refund = (k: string) =>
        v.api(`/v1/refund-transaction/${id}`, { method: 'POST', headers: { 'idempotency-key': k } });
      const refused = await refund(key);
      assertError(refused, 400, 'INVALID_STATE');
      assert.match(refused.json.message, /SUBSCRIPTION_STATUS_ACTIVE_TRIAL/);

      // The trial ends and the first payment is taken: a refund would now succeed.
      clock.set(new Date('2030-07-08T09:00:00.000Z'));
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed, 1);
      assert.equal((await read(id)).transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');

      const replayed = await refund(key);
      assert.equal(replayed.status, 400);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal(replayed.text, refused.text);
      const afterReplay = await read(id);
      assert.equal(afterReplay.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.deepEqual(
        afterReplay.entries.map((e: { type: string }) => e.type),
        ['SUBSCRIPTION_PAYMENT'],
      );

      const fresh = await refund(newKey());
      assert.equal(fresh.status, 200, fresh.text);
      assert.equal(fresh.json[0].amountTotal, 15);
    });
  });

  describe(`Idempotency-Key while the first request is in flight (${kind})`, () => {
    /** The sandbox's network, answering charges after `delayMs`; counts the charges it was asked for. */
    const slow = { delayMs: 0, charges: [] as string[] };
    const network = scriptedSandbox(async (request, real): Promise<ChargeResult> => {
      slow.charges.push(request.attemptId);
      if (slow.delayMs > 0) await sleep(slow.delayMs);
      return real.charge(request);
    });
    const gateway = network.gateway;
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind, { gateways: { sandbox: gateway } });
      network.use(sandboxGateway(t.services.database.kysely));
      v = await t.newVendor();
    });
    after(() => t.close());

    test('twenty simultaneous charge-vaulted calls with one key while the charge takes 200 ms: duplicates get 409 with Retry-After, one charge is made', async () => {
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      slow.charges = [];
      slow.delayMs = 200;
      const key = `in-flight-${kind}`;
      const body = { prices: [{ currency: 'USD', value: 9 }] };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          v.api(`/v1/charge-vaulted/${id}`, { body, headers: { 'idempotency-key': key } }),
        ),
      );
      slow.delayMs = 0;

      const ok = answers.filter((a) => a.status === 200);
      const busy = answers.filter((a) => a.status === 409);
      assert.equal(ok.length + busy.length, 20, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
      assert.ok(ok.length >= 1, 'the first request answered');
      assert.ok(
        busy.length >= 1,
        `some duplicates arrived while the first was in flight: ${answers.map((a) => a.status).join(' ')}`,
      );
      for (const a of ok) {
        assert.equal(a.json.status, 'SUCCESS');
        assert.equal(a.text, ok[0]!.text);
      }
      for (const a of busy) {
        assert.ok(['REQUEST_IN_PROGRESS', 'PAYMENT_PENDING'].includes(a.json.error), a.text);
        assert.ok(Number(a.headers.get('retry-after')) >= 1, `Retry-After: ${a.headers.get('retry-after')}`);
      }
      assert.deepEqual(slow.charges.length, 1, 'the payment network was asked once');
      const entries = (await v.api(`/v1/transaction/${id}`)).json.entries as Array<{
        type: string;
        amountTotal: string;
      }>;
      assert.deepEqual(
        entries.map((e) => `${e.type} ${e.amountTotal}`),
        ['VAULTED_PAYMENT 9.00'],
      );

      // Retried after Retry-After, a duplicate gets the first answer.
      const retry = await v.api(`/v1/charge-vaulted/${id}`, { body, headers: { 'idempotency-key': key } });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.text, ok[0]!.text);
      assert.equal(slow.charges.length, 1);
    });
  });
}
