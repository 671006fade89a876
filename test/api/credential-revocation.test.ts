import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { CREDENTIAL_CACHE_MS, credentialService } from '../../src/domain/accounts/credentials.ts';
import type { StoredCredential } from '../../src/domain/ports.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Revocation takes effect at once in the process that revoked (docs/decisions.md §3), even for a
 * login that process is looking up at that very moment. Other processes hear of it within the
 * cache's life (1 s).
 */
for (const kind of await storeKinds()) {
  describe(`credential revocation (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    before(async () => {
      t = await startTestApp(kind);
      v = await t.newVendor();
    });
    after(() => t.close());

    test('revoke, then authenticate in the same process: refused at once, over HTTP too', async () => {
      const issued = await t.services.credentials.issue(v.scope());
      assert.equal((await v.api('/v1/changed-transactions', { authorization: issued.authorization })).status, 200);
      assert.ok(await t.services.credentials.authenticate(issued.authorization, 'sandbox'), 'cached as valid');
      assert.equal(await t.services.credentials.revoke(v.scope(), issued.id), true);
      assert.equal(await t.services.credentials.authenticate(issued.authorization, 'sandbox'), undefined);
      assert.equal((await v.api('/v1/changed-transactions', { authorization: issued.authorization })).status, 401);
      assert.equal((await v.api('/v1/changed-transactions')).status, 200, "the vendor's other credential still works");
    });

    test('a password that matched once is remembered for its login only: another one of the same length is still refused', async () => {
      const issued = await t.services.credentials.issue(v.scope());
      const auth = t.services.credentials.authenticate;
      assert.ok(await auth(issued.authorization, 'sandbox'));
      assert.ok(await auth(issued.authorization, 'sandbox'), 'the remembered password');
      const flipped = issued.password.slice(0, -1) + (issued.password.endsWith('A') ? 'B' : 'A');
      assert.equal(await auth(`${issued.login}:${flipped}`, 'sandbox'), undefined);
      assert.equal(await auth(`${issued.login}:${issued.password}x`, 'sandbox'), undefined);
      assert.equal(await auth(`${issued.login}:`, 'sandbox'), undefined);
      assert.equal(await auth(issued.authorization, 'production'), undefined, 'nor in the other environment');
      const other = await t.services.credentials.issue(v.scope());
      assert.equal(await auth(`${other.login}:${issued.password}`, 'sandbox'), undefined, "nor another login's");
      assert.ok(await auth(issued.authorization, 'sandbox'));
    });

    test('a lookup that read the credential before the revocation and finished after it does not keep it alive', async () => {
      // The real store, with the answer of the first lookup held back until the revocation has committed.
      const store = t.services.store;
      let release = () => {};
      let read = () => {};
      const hold = new Promise<void>((done) => (release = done));
      const readDone = new Promise<void>((done) => (read = done));
      const credentials = credentialService({
        clock: t.services.clock,
        secret: t.config.secret,
        store: {
          vendors: store.vendors,
          credentials: {
            ...store.credentials,
            async findByLogin(login: string): Promise<StoredCredential | undefined> {
              const found = await store.credentials.findByLogin(login);
              read();
              await hold;
              return found;
            },
          },
        },
      });
      const issued = await credentials.issue(v.scope());

      const inFlight = credentials.authenticate(issued.authorization, 'sandbox');
      await readDone;
      assert.equal(await credentials.revoke(v.scope(), issued.id), true);
      release();
      // The request that was already being authenticated when the revocation came may pass: it came first.
      assert.ok(await inFlight);
      assert.equal(
        await credentials.authenticate(issued.authorization, 'sandbox'),
        undefined,
        'the next request is refused',
      );
    });

    test("another process's revocation is heard within a second: when the first process's cached lookup expires", async () => {
      // Two processes on one database: each its own credential service (and cache) over the same store.
      const clock = fixedClock(new Date('2026-11-24T10:00:00Z'));
      const processOf = () => credentialService({ clock, secret: t.config.secret, store: t.services.store });
      const serving = processOf();
      const revoking = processOf();
      const issued = await serving.issue(v.scope());
      assert.ok(await serving.authenticate(issued.authorization, 'sandbox'), 'looked up and cached');
      assert.equal(await revoking.revoke(v.scope(), issued.id), true);
      assert.equal(
        await revoking.authenticate(issued.authorization, 'sandbox'),
        undefined,
        'refused at once where it was revoked',
      );
      clock.advance(CREDENTIAL_CACHE_MS - 1);
      assert.ok(
        await serving.authenticate(issued.authorization, 'sandbox'),
        'the other process still trusts its lookup',
      );
      clock.advance(1);
      assert.equal(
        await serving.authenticate(issued.authorization, 'sandbox'),
        undefined,
        'and refuses it one second after it looked',
      );
      assert.equal(CREDENTIAL_CACHE_MS, 1000);
    });
  });
}
