import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { FLASH_MS, panelFlashService } from '../../src/domain/accounts/panel-flashes.ts';
import type { Store } from '../../src/domain/ports.ts';
import type { Database } from '../../src/store/database.ts';
import { createStore } from '../../src/store/index.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';

/**
 * The panel's one-time flashes in the store, on both stores: a flash is taken once, of two takes at
 * once one gets it, an expired one is gone, and what the database holds cannot be read without the
 * session's cookie.
 */
for (const kind of await storeKinds()) {
  describe(`panel flashes (${kind})`, () => {
    let database: Database;
    let store: Store;
    let drop: () => Promise<void>;
    before(async () => {
      const fresh = await freshDatabase(kind);
      database = fresh.database;
      store = createStore(database);
      drop = fresh.drop;
    });
    after(() => drop());

    const rows = () => database.kysely.selectFrom('panel_flashes').selectAll().execute();
    const flash = (sessionHash: string, expiresAt = '2030-01-01T00:01:00.000Z') => ({
      sessionHash,
      sealed: `sealed-${sessionHash}`,
      expiresAt,
    });

    test('a flash is taken once: the second take, a reload, finds nothing', async () => {
      await store.panelFlashes.put(flash('once'), '2030-01-01T00:00:00.000Z');
      assert.equal(await store.panelFlashes.take('once', '2030-01-01T00:00:01.000Z'), 'sealed-once');
      assert.equal(await store.panelFlashes.take('once', '2030-01-01T00:00:02.000Z'), undefined);
      assert.equal((await rows()).filter((r) => r.session_hash === 'once').length, 0);
    });

    test('of two takes at once, exactly one gets the flash', async () => {
      for (let i = 0; i < 20; i++) {
        const key = `race-${i}`;
        await store.panelFlashes.put(flash(key), '2030-01-01T00:00:00.000Z');
        const taken = await Promise.all([
          store.panelFlashes.take(key, '2030-01-01T00:00:01.000Z'),
          store.panelFlashes.take(key, '2030-01-01T00:00:01.000Z'),
        ]);
        assert.deepEqual(
          taken.filter((t) => t !== undefined),
          [`sealed-${key}`],
          `round ${i}`,
        );
      }
    });

    test('a second flash of the same session replaces the first; an expired one is not given and is purged', async () => {
      await store.panelFlashes.put(flash('twice'), '2030-01-01T00:00:00.000Z');
      await store.panelFlashes.put({ ...flash('twice'), sealed: 'newer' }, '2030-01-01T00:00:00.000Z');
      assert.equal(await store.panelFlashes.take('twice', '2030-01-01T00:00:01.000Z'), 'newer');

      await store.panelFlashes.put(flash('late'), '2030-01-01T00:00:00.000Z');
      assert.equal(
        await store.panelFlashes.take('late', '2030-01-01T00:01:00.000Z'),
        undefined,
        'at its expiry it is gone',
      );
      await store.panelFlashes.put(flash('left', '2030-01-01T00:01:00.000Z'), '2030-01-01T00:00:00.000Z');
      await store.panelFlashes.put(flash('next', '2030-01-01T00:03:00.000Z'), '2030-01-01T00:02:00.000Z');
      assert.deepEqual(
        (await rows()).map((r) => r.session_hash),
        ['next'],
        'a flash never taken is deleted once expired',
      );
      await store.panelFlashes.take('next', '2030-01-01T00:02:00.000Z');
    });

    test('the service seals the message with the cookie: the database holds no secret, another cookie reads nothing', async () => {
      const clock = fixedClock(new Date('2030-01-01T00:00:00.000Z'));
      const flashes = panelFlashService({ store, clock });
      const secret = 'TC-VE_x:very-secret-password';
      await flashes.put('cookie-a', secret);
      const [row] = await rows();
      assert.ok(
        row &&
          !row.sealed.includes('very-secret') &&
          !Buffer.from(row.sealed, 'base64url').toString('latin1').includes('very-secret'),
      );
      assert.equal(row.expires_at, new Date(Date.parse('2030-01-01T00:00:00.000Z') + FLASH_MS).toISOString());
      assert.equal(await flashes.take('cookie-b'), undefined);
      assert.equal(await flashes.take(undefined), undefined);
      assert.equal(await flashes.take('cookie-a'), secret);
      assert.equal(await flashes.take('cookie-a'), undefined);

      await flashes.put('cookie-a', secret);
      clock.advance(FLASH_MS);
      assert.equal(await flashes.take('cookie-a'), undefined, 'a minute later it is gone');
      assert.deepEqual(await rows(), []);
    });
  });
}
