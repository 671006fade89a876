import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import { createStore } from '../../src/store/index.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

/**
 * A claim of the outbox takes at most `limit` rows, and two claims at once take different rows: on
 * a fresh (unanalysed) PostgreSQL table the planner once rescanned the locking subquery per row and
 * one claim took every due row.
 */
for (const kind of await storeKinds()) {
  test(`an outbox claim takes at most its limit, and claims at once take different rows (${kind})`, async () => {
    const { database, drop } = await freshDatabase(kind);
    try {
      const store = createStore(database);
      const at = '2030-01-01T00:00:00.000Z';
      const scope = { vendorId: 'TC-VE_X', environment: 'sandbox' as const };
      await store.customerEmails.enqueue(
        Array.from({ length: 30 }, (_, i) => ({
          id: newId('email'),
          scope,
          kind: 'RECEIPT' as const,
          eventKey: `RECEIPT:TC-TR_${i}`,
          facts: { transactionId: `TC-TR_${i}` },
          status: 'PENDING' as const,
          tries: 0,
          nextTryAt: at,
          lastError: null,
          createdAt: at,
          sentAt: null,
        })),
      );
      const claim = (owner: string) =>
        store.customerEmails.claim({
          now: '2030-01-01T00:01:00.000Z',
          owner,
          leaseUntil: '2030-01-01T00:06:00.000Z',
          limit: 5,
        });
      const [a, b] = await Promise.all([claim('a'), claim('b')]);
      assert.equal(a.length, 5);
      assert.equal(b.length, 5);
      assert.equal(new Set([...a, ...b].map((e) => e.id)).size, 10);
      assert.equal((await claim('c')).length, 5);
    } finally {
      await drop();
    }
  });
}
