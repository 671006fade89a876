import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Sandbox clocks with several processes on one database (issue 16): a clock moved through one
 * process is the clock of the vendor's next sandbox API request through another, and of its hosted
 * sandbox pages within a second. Two apps on one store stand for two `opentill serve` processes.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`sandbox clocks across processes (${kind})`, () => {
    let one: TestApp;
    let two: TestApp;
    let v: TestVendor;
    before(async () => {
      one = await startTestApp(kind);
      two = await startTestApp(kind, { database: one.services.database });
      v = await one.newVendor();
    });
    after(async () => {
      await two?.close();
      await one?.close();
    });

    test('the next sandbox API request in another process runs on the moved clock', async () => {
      const vendorId = v.scope().vendorId;
      const moved = await v.api('/v1/clock/advance', { body: { seconds: 10 * 86_400 } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(two.services.clock.offsetOf(vendorId), 0, 'the other process has not heard yet');

      // A read of stored records asks nothing of the time, so it does not read the clock either.
      const read = await fetch(`${two.url}/sandbox/v1/changed-transactions`, {
        headers: { authorization: v.credentials.sandbox.authorization },
      });
      assert.equal(read.status, 200);
      assert.equal(two.services.clock.offsetOf(vendorId), 0, 'a timeless read leaves the clock unread');
      // A link is signed to expire by the vendor's time.
      const res = await fetch(`${two.url}/sandbox/v1/generate-url-to-admin`, {
        headers: { authorization: v.credentials.sandbox.authorization },
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(two.services.clock.offsetOf(vendorId), 10 * DAY, 'read from the store with the request');
      assert.equal(two.services.clock.now(v.scope()).getTime() - Date.now() > 10 * DAY - 60_000, true);

      // Moved back through the other process: the first one follows on its next request too.
      assert.equal(
        (
          await fetch(`${two.url}/sandbox/v1/clock/advance`, {
            method: 'POST',
            headers: { authorization: v.credentials.sandbox.authorization, 'content-type': 'application/json' },
            body: JSON.stringify({ seconds: 86_400 }),
          })
        ).status,
        200,
      );
      assert.equal((await v.api('/v1/generate-url-to-admin')).status, 200);
      assert.equal(one.services.clock.offsetOf(vendorId), 11 * DAY);
    });

    test('a hosted sandbox page in another process loads the moved clocks (at most once a second)', async () => {
      const paging = await one.newVendor('Paging');
      await paging.api('/v1/clock/advance', { body: { seconds: 3 * 86_400 } });
      assert.equal(two.services.clock.offsetOf(paging.scope().vendorId), 0);
      await fetch(`${two.url}/sandbox/no-such-page`);
      assert.equal(two.services.clock.offsetOf(paging.scope().vendorId), 3 * DAY);
    });

    test('a production request reads no sandbox clock', async () => {
      const other = await one.newVendor('Other');
      await other.api('/v1/clock/advance', { body: { seconds: 86_400 } });
      const res = await fetch(`${two.url}/v1/changed-transactions`, {
        headers: { authorization: other.credentials.production.authorization },
      });
      assert.equal(res.status, 200);
      assert.equal(two.services.clock.offsetOf(other.scope().vendorId), 0);
    });
  });
}
