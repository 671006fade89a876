import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { STALE_CLAIM_MS } from '../../src/domain/idempotency.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * An Idempotency-Key left "in progress" by a process that died (issue 16's chaos): the same request
 * sent again is told to retry while the claim may still be alive, and takes the key over once it is
 * older than any request runs; a different request with that key is still a conflict.
 */
for (const kind of await storeKinds()) {
  describe(`a key whose request died (${kind})`, () => {
    const clock = fixedClock(new Date());
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind, { clock });
      v = await t.newVendor();
    });
    after(() => t.close());

    test('is taken over by the same request once stale, never by another', async () => {
      const id = await v.buy((await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 25 }] })).id);
      const send = (payload: string) =>
        v.api(`/v1/transaction/${id}`, { body: { payload }, headers: { 'idempotency-key': 'died-midway' } });
      assert.equal((await send('first')).status, 200);
      // As if the process had died after claiming the key and before recording the answer.
      await t.services.database.kysely
        .updateTable('idempotency_keys')
        .set({ state: 'IN_PROGRESS', status_code: null, response_body: null })
        .where('idempotency_key', '=', 'died-midway')
        .execute();

      const early = await send('first');
      assert.equal(early.status, 409);
      assert.equal(early.json.error, 'REQUEST_IN_PROGRESS');
      clock.advance(STALE_CLAIM_MS - 1000);
      assert.equal((await send('first')).status, 409, 'not before the claim could have run its course');

      clock.advance(1000);
      assert.equal((await send('other')).json.error, 'IDEMPOTENCY_CONFLICT', 'another request never takes it over');
      const retried = await send('first');
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.json.payload, 'first');
      const replayed = await send('first');
      assert.deepEqual([replayed.status, replayed.json], [200, retried.json], 'and its answer is kept as usual');
    });
  });
}
