import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-06-01T08:00:00.000Z'));
const tick = () => clock.advance(1000);

type Element = Record<string, unknown> & { id: string };

for (const kind of await storeKinds()) {
  describe(`changed-transactions feed (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { clock });
    });
    after(() => t.close());

    // Each test gets its own vendor, so its feed holds only what the test did.
    const vendor = () => t.newVendor();
    const list = async (v: TestVendor, query = '') => {
      const res = await v.api(`/v1/changed-transactions${query}`);
      assert.equal(res.status, 200);
      return { elements: res.json as Element[], more: res.headers.get('x-more-changes') };
    };
    const ids = async (v: TestVendor) => (await list(v)).elements.map((e) => e.id);
    const mark = (v: TestVendor, id: string) => v.api(`/v1/changed-transactions/${id}`, { method: 'POST' });

    test('a new purchase is listed with both spellings of the flag and of the assigned e-mail', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'ONETIME', name: 'Feed Product' });
      const id = await v.buy(product.id, { email: 'feed-new@example.com', country: 'FR' });
      await v.api(`/v1/transaction/${id}`, { body: { assignEmail: 'signup@vendor.example' } });
      const { elements } = await list(v);
      assert.equal(elements.length, 1);
      const [e] = elements;
      assert.equal(e!.id, id);
      assert.equal(e!.changeStatus, 'CHANGED_STATUS_NEW');
      assert.equal(e!.changedStatus, 'CHANGED_STATUS_NEW');
      assert.equal(e!.assignEmail, 'signup@vendor.example');
      assert.equal(e!.assignedEmail, 'signup@vendor.example');
      assert.equal(e!.email, 'feed-new@example.com');
      assert.equal(e!.transactionStatus, 'ONE_TIME_PAYMENT_STATUS_PAID');
      assert.equal(e!.transactionType, 'ONETIME');
      assert.equal(e!.chargeFrequency, 'UNKNOWN');
      assert.equal(e!.country, 'FR');
      assert.equal(e!.productId, product.id);
      assert.equal(e!.productName, 'Feed Product');
      assert.equal('nextCharge' in e!, false, 'absent for one-time transactions');
      assert.equal(e!.whoCanceled, null);
      assert.equal(e!.payload, null);
      assert.equal(e!.createDate, clock.now().toISOString());
      assert.equal(e!.lastCharge, clock.now().toISOString());
    });

    test('listing alone changes nothing: a second list shows the same transactions', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      const first = await list(v);
      const second = await list(v);
      assert.deepEqual(
        first.elements.map((e) => e.id),
        [id],
      );
      assert.deepEqual(second.elements, first.elements);
    });

    test('marking processed after a list removes the transaction from later lists', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'ONETIME' });
      const kept = await v.buy(product.id);
      tick();
      const processed = await v.buy(product.id);
      assert.deepEqual(await ids(v), [kept, processed]);
      const res = await mark(v, processed);
      assert.equal(res.status, 200);
      assert.deepEqual(await ids(v), [kept]);
      // Marking again is harmless.
      assert.equal((await mark(v, processed)).status, 200);
      assert.deepEqual(await ids(v), [kept]);
    });

    test('a change after the latest list keeps the transaction in the feed after marking', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION' });
      const id = await v.buy(product.id);
      const seen = await list(v);
      assert.equal(seen.elements[0]!.changeStatus, 'CHANGED_STATUS_NEW');
      tick();
      assert.equal((await v.api(`/v1/cancel-subscription/${id}`, { method: 'POST' })).status, 200);
      assert.equal((await mark(v, id)).status, 200);
      const { elements } = await list(v);
      assert.equal(elements.length, 1);
      assert.equal(elements[0]!.id, id);
      assert.equal(elements[0]!.changeStatus, 'CHANGED_STATUS_CANCELLED');
      assert.equal(elements[0]!.changedStatus, 'CHANGED_STATUS_CANCELLED');
      assert.equal(elements[0]!.transactionStatus, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      // Now the vendor has seen the cancellation: marking removes it.
      assert.equal((await mark(v, id)).status, 200);
      assert.deepEqual(await ids(v), []);
    });

    test('a change marked before any list showed it stays in the feed', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      assert.equal((await mark(v, id)).status, 200);
      assert.deepEqual(await ids(v), [id]);
    });

    test('oldest change first: a later change moves a transaction to the end', async () => {
      const v = await vendor();
      const product = await v.product({ type: 'SUBSCRIPTION' });
      const bought: string[] = [];
      for (let i = 0; i < 3; i++) {
        tick();
        bought.push(await v.buy(product.id, { email: `order${i}@example.com` }));
      }
      assert.deepEqual(await ids(v), bought);
      tick();
      await v.api(`/v1/cancel-subscription/${bought[0]}`, { method: 'POST' });
      assert.deepEqual(await ids(v), [bought[1], bought[2], bought[0]]);
    });

    test('?limit= caps the list and x-more-changes says whether more are waiting', async () => {
      const v = await vendor();
      const product = await v.product({ type: 'ONETIME' });
      const bought: string[] = [];
      for (let i = 0; i < 3; i++) {
        tick();
        bought.push(await v.buy(product.id));
      }
      const two = await list(v, '?limit=2');
      assert.deepEqual(
        two.elements.map((e) => e.id),
        bought.slice(0, 2),
      );
      assert.equal(two.more, 'true');
      const three = await list(v, '?limit=3');
      assert.equal(three.elements.length, 3);
      assert.equal(three.more, 'false');
      const all = await list(v);
      assert.equal(all.more, 'false');
      for (const id of bought.slice(0, 2)) await mark(v, id);
      const rest = await list(v, '?limit=2');
      assert.deepEqual(
        rest.elements.map((e) => e.id),
        [bought[2]],
      );
      assert.equal(rest.more, 'false');
    });

    test('a limit outside 1..10000 is 400', async () => {
      const v = await vendor();
      for (const limit of ['0', '10001', 'abc', '-1']) {
        const res = await v.api(`/v1/changed-transactions?limit=${limit}`);
        assert.equal(res.status, 400, `limit=${limit}`);
        assert.equal(typeof res.json.message, 'string');
      }
    });

    test("marking an unknown or another vendor's transaction is 404 and leaves its feed alone", async () => {
      const v = await vendor();
      const other = await vendor();
      tick();
      const product = await other.product({ type: 'ONETIME' });
      const foreign = await other.buy(product.id);
      await list(other);
      const res = await mark(v, foreign);
      assert.equal(res.status, 404);
      assert.equal(res.json.error, 'NOT_FOUND');
      assert.equal((await mark(v, 'TC-TR_UNKNOWN')).status, 404);
      assert.deepEqual(await ids(other), [foreign]);
    });

    test('the production feed and the sandbox feed are separate', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'ONETIME' }, 'production');
      const id = await v.buy(product.id, {}, 'production');
      assert.deepEqual(await ids(v), []);
      const prod = await v.api('/v1/changed-transactions', { environment: 'production' });
      assert.deepEqual(
        prod.json.map((e: Element) => e.id),
        [id],
      );
      assert.equal((await mark(v, id)).status, 404);
    });

    test('a trial purchase is flagged CHANGED_STATUS_TRIAL', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'YEARLY', trialDays: 10 });
      const id = await v.buy(product.id);
      const [e] = (await list(v)).elements;
      assert.equal(e!.id, id);
      assert.equal(e!.changeStatus, 'CHANGED_STATUS_TRIAL');
      assert.equal(e!.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL');
      assert.equal(e!.chargeFrequency, 'YEARLY');
      assert.equal(e!.nextCharge, new Date(clock.now().getTime() + 10 * 86_400_000).toISOString());
      assert.equal(e!.lastCharge, null);
    });

    test('a vaulted purchase is flagged CHANGED_STATUS_VAULTED_ACTIVATION', async () => {
      const v = await vendor();
      tick();
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id);
      const [e] = (await list(v)).elements;
      assert.equal(e!.id, id);
      assert.equal(e!.changeStatus, 'CHANGED_STATUS_VAULTED_ACTIVATION');
      assert.equal(e!.transactionStatus, 'VAULTED_STATUS_ACTIVE');
      assert.equal(e!.transactionType, 'VAULTED');
    });
  });
}
