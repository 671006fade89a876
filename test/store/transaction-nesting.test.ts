import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { Vendor } from '../../src/domain/model.ts';
import type { Store } from '../../src/domain/ports.ts';
import { createStore } from '../../src/store/index.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

const vendor = (id: string): Vendor => ({
  id,
  name: id,
  email: `${id}@example.com`,
  createdAt: '2030-01-01T00:00:00.000Z',
  productionEnabled: true,
  allowConversion: true,
  adminFrameOrigins: [],
  sellerName: null,
  address: null,
  country: null,
  taxId: null,
  supportEmail: null,
  logo: null,
  emails: { senderName: null, replyTo: null, off: [] },
  platformFee: null,
  suspension: null,
});

for (const kind of await storeKinds()) {
  describe(`database transactions (${kind})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    before(async () => {
      const fresh = await freshDatabase(kind);
      store = createStore(fresh.database);
      drop = fresh.drop;
    });
    after(() => drop());

    test('a transaction opened inside another is refused, and the outer one rolls back', async () => {
      await assert.rejects(
        store.transaction(async (repos) => {
          await repos.vendors.insert(vendor('TC-VE_nested_outer'));
          await store.transaction((inner) => inner.vendors.insert(vendor('TC-VE_nested_inner')));
        }),
        { message: 'nested database transaction' },
      );
      assert.equal(await store.vendors.find('TC-VE_nested_outer'), undefined);
      assert.equal(await store.vendors.find('TC-VE_nested_inner'), undefined);
    });

    test("nesting is refused however deep in the outer transaction's async calls it happens", async () => {
      const deep = async () => {
        await sleep(5);
        await Promise.resolve();
        return store.transaction(async () => undefined);
      };
      await assert.rejects(
        store.transaction(async (repos) => {
          await repos.vendors.insert(vendor('TC-VE_deep_outer'));
          await deep();
        }),
        { message: 'nested database transaction' },
      );
      assert.equal(await store.vendors.find('TC-VE_deep_outer'), undefined);
    });

    test('two concurrent transactions, neither inside the other, both commit', async () => {
      const write = (id: string) =>
        store.transaction(async (repos) => {
          await sleep(10);
          await repos.vendors.insert(vendor(id));
        });
      await Promise.all([write('TC-VE_concurrent_a'), write('TC-VE_concurrent_b')]);
      assert.ok(await store.vendors.find('TC-VE_concurrent_a'));
      assert.ok(await store.vendors.find('TC-VE_concurrent_b'));
    });

    test('work a transaction left running may open its own transaction once the first has ended', async () => {
      let later: Promise<void> | undefined;
      await store.transaction(async (repos) => {
        await repos.vendors.insert(vendor('TC-VE_left_first'));
        later = sleep(20).then(() => store.transaction((again) => again.vendors.insert(vendor('TC-VE_left_later'))));
      });
      await later;
      assert.ok(await store.vendors.find('TC-VE_left_first'));
      assert.ok(await store.vendors.find('TC-VE_left_later'));
    });

    test('a write outside any transaction waits for an open one instead of landing inside it and rolling back with it', async () => {
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      const failing = store.transaction(async (repos) => {
        await repos.vendors.insert(vendor('TC-VE_rolled_back'));
        inside();
        await sleep(30);
        throw new Error('rolled back on purpose');
      });
      await started;
      await store.vendors.insert(vendor('TC-VE_autocommit'));
      await assert.rejects(failing, { message: 'rolled back on purpose' });
      assert.equal(await store.vendors.find('TC-VE_rolled_back'), undefined);
      assert.ok(await store.vendors.find('TC-VE_autocommit'));
    });

    test("a transaction's repositories refuse to run once it has ended, even while another transaction is open", async () => {
      let kept: Parameters<Parameters<Store['transaction']>[0]>[0] | undefined;
      await store.transaction(async (repos) => {
        kept = repos;
        await repos.vendors.insert(vendor('TC-VE_kept_first'));
      });
      await store.transaction(async (repos) => {
        await repos.vendors.insert(vendor('TC-VE_kept_second'));
        await assert.rejects(kept!.vendors.insert(vendor('TC-VE_kept_late')));
        await assert.rejects(
          kept!.transactions.find({ vendorId: 'TC-VE_kept_first', environment: 'sandbox' }, 'TC-TR_NONE'),
        );
      });
      assert.equal(await store.vendors.find('TC-VE_kept_late'), undefined);
      assert.ok(await store.vendors.find('TC-VE_kept_second'));
    });
  });
}
