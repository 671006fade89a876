import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type ApiResponse, type TestApp, type TestVendor } from '../helpers/test-app.ts';

function assertError(res: ApiResponse, status: number, error: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.error, error, res.text);
  assert.equal(typeof res.json?.message, 'string', res.text);
}

const CHARGE = { prices: [{ currency: 'USD', value: 5 }] };

for (const kind of await storeKinds()) {
  describe(`Idempotency-Key on POSTs (${kind})`, () => {
    let t: TestApp;
    let a: TestVendor;
    let b: TestVendor;
    let keyCounter = 0;
    const newKey = () => `key-${kind}-${Date.now()}-${++keyCounter}`;
    const entriesOf = async (v: TestVendor, id: string, type: string) => {
      const res = await v.api(`/v1/transaction/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.json.entries.filter((e: { type: string }) => e.type === type).length;
    };
    const paidOnetime = async (v: TestVendor) =>
      v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] })).id);
    const activeVaulted = async (v: TestVendor) =>
      v.buy((await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] })).id);

    before(async () => {
      t = await startTestApp(kind);
      a = await t.newVendor('Vendor A');
      b = await t.newVendor('Vendor B');
    });
    after(() => t.close());

    test('a refund repeated with the same key replays the first answer byte for byte and refunds once', async () => {
      const id = await paidOnetime(a);
      const key = newKey();
      const first = await a.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.length, 1);
      const second = await a.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
      });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.text, first.text);
      assert.equal(second.headers.get('content-type'), first.headers.get('content-type'));
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(await entriesOf(a, id, 'ONETIME_PAYMENT_REFUND'), 1);
      // Without the key, a second refund is a new request and refused: the key is what made the retry safe.
      assertError(await a.api(`/v1/refund-transaction/${id}`, { method: 'POST' }), 400, 'INVALID_STATE');
      assert.equal(await entriesOf(a, id, 'ONETIME_PAYMENT_REFUND'), 1);
    });

    test('charge-vaulted repeated with the same key and body replays the answer and charges once', async () => {
      const id = await activeVaulted(a);
      const key = newKey();
      const first = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.status, 'SUCCESS');
      for (let i = 0; i < 3; i++) {
        const again = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
        assert.equal(again.status, 200, again.text);
        assert.equal(again.text, first.text);
      }
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
      // A new key is a new charge.
      const other = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': newKey() } });
      assert.equal(other.status, 200, other.text);
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 2);
    });

    test('after the stored answer is purged, the same charge-vaulted key repeats its outcome and still charges once', async () => {
      const id = await activeVaulted(a);
      const key = newKey();
      const first = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(first.json.status, 'SUCCESS', first.text);
      // What the daily purge does to keys past their 24 hours: the answer can no longer be replayed.
      assert.ok((await t.services.store.idempotency.purgeOlderThan('9999-12-31T00:00:00.000Z')) >= 1);
      const again = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), null, 'a fresh run, not a replay');
      assert.equal(again.json.status, 'SUCCESS');
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
      // The same key with other prices is another charge, not a repeat: refused, nothing charged.
      await t.services.store.idempotency.purgeOlderThan('9999-12-31T00:00:00.000Z');
      const other = await a.api(`/v1/charge-vaulted/${id}`, {
        body: { ...CHARGE, prices: [{ currency: 'USD', value: 99 }] },
        headers: { 'idempotency-key': key },
      });
      assertError(other, 409, 'IDEMPOTENCY_CONFLICT');
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
    });

    test('an error answer is replayed too, so a retry cannot turn into a different outcome', async () => {
      const product = await a.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] });
      const key = newKey();
      const body = { prices: [{ currency: 'EUR', value: 5 }] };
      const first = await a.api(`/v1/customize-product/${product.id}`, { body, headers: { 'idempotency-key': key } });
      assertError(first, 400, 'USD_PRICE_REQUIRED');
      const second = await a.api(`/v1/customize-product/${product.id}`, { body, headers: { 'idempotency-key': key } });
      assert.equal(second.status, 400);
      assert.equal(second.text, first.text);
    });

    test('the same key with a different body, or on another path, is 409 IDEMPOTENCY_CONFLICT and changes nothing', async () => {
      const id = await activeVaulted(a);
      const key = newKey();
      const first = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(first.status, 200, first.text);
      assertError(
        await a.api(`/v1/charge-vaulted/${id}`, {
          body: { prices: [{ currency: 'USD', value: 6 }] },
          headers: { 'idempotency-key': key },
        }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      assertError(
        await a.api(`/v1/charge-vaulted/${id}`, {
          body: { ...CHARGE, chargeDescription: 'other' },
          headers: { 'idempotency-key': key },
        }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      const otherVaulted = await activeVaulted(a);
      assertError(
        await a.api(`/v1/charge-vaulted/${otherVaulted}`, { body: CHARGE, headers: { 'idempotency-key': key } }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
      assert.equal(await entriesOf(a, otherVaulted, 'VAULTED_PAYMENT'), 0);
      // The first answer is still what the key replays.
      const replay = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(replay.text, first.text);
    });

    test('a key longer than 255 characters is 400 and the request is not performed; 255 is accepted', async () => {
      const id = await paidOnetime(a);
      assertError(
        await a.api(`/v1/refund-transaction/${id}`, {
          method: 'POST',
          headers: { 'idempotency-key': 'k'.repeat(256) },
        }),
        400,
        'INVALID_INPUT',
      );
      assertError(
        await a.api(`/v1/refund-transaction/${id}`, {
          method: 'POST',
          headers: { 'idempotency-key': 'k'.repeat(4000) },
        }),
        400,
        'INVALID_INPUT',
      );
      assert.equal(await entriesOf(a, id, 'ONETIME_PAYMENT_REFUND'), 0);
      assert.equal((await a.api(`/v1/transaction/${id}`)).json.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      const ok = await a.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        headers: { 'idempotency-key': `${'k'.repeat(250)}${keyCounter++}`.slice(-255).padStart(255, 'k') },
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(await entriesOf(a, id, 'ONETIME_PAYMENT_REFUND'), 1);
    });

    test('keys are scoped per vendor: vendor B uses the same key value independently of vendor A', async () => {
      const key = newKey();
      const aTx = await paidOnetime(a);
      const bTx = await paidOnetime(b);
      const aRefund = await a.api(`/v1/refund-transaction/${aTx}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
      });
      assert.equal(aRefund.status, 200, aRefund.text);
      const bRefund = await b.api(`/v1/refund-transaction/${bTx}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
      });
      assert.equal(bRefund.status, 200, bRefund.text);
      assert.equal(bRefund.headers.get('idempotent-replayed'), null);
      assert.notEqual(bRefund.json[0].id, aRefund.json[0].id);
      assert.equal(await entriesOf(b, bTx, 'ONETIME_PAYMENT_REFUND'), 1);
      // Same key value, same path and body, other vendor: B's own vaulted charge happens.
      const aVault = await activeVaulted(a);
      const bVault = await activeVaulted(b);
      const vaultKey = newKey();
      assert.equal(
        (await a.api(`/v1/charge-vaulted/${aVault}`, { body: CHARGE, headers: { 'idempotency-key': vaultKey } }))
          .status,
        200,
      );
      assert.equal(
        (await b.api(`/v1/charge-vaulted/${bVault}`, { body: CHARGE, headers: { 'idempotency-key': vaultKey } }))
          .status,
        200,
      );
      assert.equal(await entriesOf(a, aVault, 'VAULTED_PAYMENT'), 1);
      assert.equal(await entriesOf(b, bVault, 'VAULTED_PAYMENT'), 1);
    });

    test('keys are scoped per environment: the same key in production does not replay the sandbox answer', async () => {
      const key = newKey();
      const sandboxTx = await paidOnetime(a);
      const liveProduct = await a.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 20 }] }, 'production');
      const liveTx = await a.buy(liveProduct.id, {}, 'production');
      assert.equal(
        (await a.api(`/v1/refund-transaction/${sandboxTx}`, { method: 'POST', headers: { 'idempotency-key': key } }))
          .status,
        200,
      );
      const live = await a.api(`/v1/refund-transaction/${liveTx}`, {
        method: 'POST',
        environment: 'production',
        headers: { 'idempotency-key': key },
      });
      assert.equal(live.status, 200, live.text);
      assert.equal(live.headers.get('idempotent-replayed'), null);
      assert.equal(
        (await a.api(`/v1/transaction/${liveTx}`, { environment: 'production' })).json.transactionStatus,
        'TRANSACTION_STATUS_REFUNDED',
      );
    });

    test('20 simultaneous charge-vaulted calls with one key charge exactly once; the others replay or get 409 with Retry-After', async () => {
      const id = await activeVaulted(a);
      const key = newKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const busy = results.filter((r) => r.status === 409);
      assert.equal(ok.length + busy.length, 20, results.map((r) => `${r.status} ${r.text}`).join('\n'));
      assert.ok(ok.length >= 1);
      for (const r of ok) {
        assert.equal(r.text, ok[0]!.text);
        assert.equal(r.json.status, 'SUCCESS');
      }
      for (const r of busy) {
        assertError(r, 409, 'REQUEST_IN_PROGRESS');
        assert.ok(Number(r.headers.get('retry-after')) >= 1, `Retry-After: ${r.headers.get('retry-after')}`);
      }
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
      // Once the first finished, a retry replays it.
      const retry = await a.api(`/v1/charge-vaulted/${id}`, { body: CHARGE, headers: { 'idempotency-key': key } });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.text, ok[0]!.text);
      assert.equal(await entriesOf(a, id, 'VAULTED_PAYMENT'), 1);
    });

    test('20 simultaneous refunds with one key refund exactly once', async () => {
      const id = await paidOnetime(a);
      const key = newKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          a.api(`/v1/refund-transaction/${id}`, { method: 'POST', headers: { 'idempotency-key': key } }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      assert.ok(ok.length >= 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
      for (const r of ok) assert.equal(r.text, ok[0]!.text);
      for (const r of results.filter((x) => x.status !== 200)) assertError(r, 409, 'REQUEST_IN_PROGRESS');
      assert.equal(await entriesOf(a, id, 'ONETIME_PAYMENT_REFUND'), 1);
    });
  });
}
