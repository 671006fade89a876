import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * Sign-up does not tell whether an e-mail has an account (docs/decisions.md §19): a known e-mail
 * gets the answer a new one gets, nobody is signed in to the existing account, nothing changes,
 * and the owner signs in as before.
 */
for (const kind of await storeKinds()) {
  describe(`panel sign-up with a known e-mail (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    /** One sign-up or sign-in as a fresh browser: the form's double-submit token first, then the post. */
    async function submit(mode: 'signup' | 'signin', fields: Record<string, string>) {
      const form = await fetch(`${t.url}/panel/${mode}`);
      const csrfCookie = form.headers
        .getSetCookie()
        .find((c) => c.startsWith('ot_panel_csrf='))!
        .split(';')[0]!;
      const csrf = /name="csrf" value="([^"]*)"/.exec(await form.text())![1]!;
      const res = await fetch(`${t.url}/panel/${mode}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, ...fields }),
      });
      const session = res.headers.getSetCookie().find((c) => c.startsWith('ot_panel='));
      return {
        status: res.status,
        location: res.headers.get('location'),
        body: await res.text(),
        /** The session cookie's attributes, its value masked to its length. */
        cookieShape: session?.replace(
          /^ot_panel=([^;]*)/,
          (_, value: string) => `ot_panel=<${value.length} characters>`,
        ),
        cookie: session?.split(';')[0],
      };
    }
    const panelWith = async (cookie: string | undefined) => {
      const res = await fetch(`${t.url}/panel`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      return { status: res.status, location: res.headers.get('location'), html: await res.text() };
    };
    const vendorCount = async () => (await t.services.store.vendors.list()).length;

    test('a known e-mail gets the answer a new e-mail gets, but no session, and nothing changes', async () => {
      const owner = await submit('signup', {
        company: 'Acme Software',
        email: 'owner@acme.test',
        password: 'the owner passphrase',
      });
      assert.equal(owner.status, 303);
      const ownerSession = owner.cookie;
      const vendors = await vendorCount();

      const fresh = await submit('signup', {
        company: 'Someone',
        email: 'someone-new@acme.test',
        password: 'a guessing passphrase',
      });
      const known = await submit('signup', {
        company: 'Someone',
        email: 'Owner@Acme.test',
        password: 'a guessing passphrase',
      });
      assert.deepEqual(
        { status: known.status, location: known.location, body: known.body, cookie: known.cookieShape },
        { status: fresh.status, location: fresh.location, body: fresh.body, cookie: fresh.cookieShape },
      );
      assert.equal(known.status, 303);
      assert.doesNotMatch(known.body, /already|sign in instead/i);

      // The fresh account is open; the known e-mail's cookie opens nothing, as an expired session would.
      assert.equal((await panelWith(fresh.cookie)).status, 200);
      assert.deepEqual(await panelWith(known.cookie), await panelWith('ot_panel=an-expired-session-cookie-value'));
      assert.equal((await panelWith(known.cookie)).location, '/panel/signin');
      assert.equal(await vendorCount(), vendors + 1, 'only the new e-mail made a vendor');

      // The owner's account is as it was: the owner's session and password work, the guesser's password does not.
      assert.match(
        (await panelWith(ownerSession)).html,
        /<strong>Acme Software<\/strong> <span class="muted">owner@acme\.test/,
      );
      assert.equal(
        (await submit('signin', { email: 'owner@acme.test', password: 'the owner passphrase' })).status,
        303,
      );
      assert.equal(
        (await submit('signin', { email: 'owner@acme.test', password: 'a guessing passphrase' })).status,
        401,
      );
    });

    test("signing up again with the owner's own password signs nobody in either; signing in does", async () => {
      await submit('signup', { company: 'Beta', email: 'beta@acme.test', password: 'the beta passphrase' });
      const again = await submit('signup', {
        company: 'Beta',
        email: 'beta@acme.test',
        password: 'the beta passphrase',
      });
      assert.equal(again.location, '/panel');
      assert.equal((await panelWith(again.cookie)).status, 303);
      const signIn = await submit('signin', { email: 'beta@acme.test', password: 'the beta passphrase' });
      assert.match((await panelWith(signIn.cookie)).html, /<strong>Beta<\/strong> <span class="muted">beta@acme\.test/);
    });

    test('input mistakes are shown the same for known and new e-mails', async () => {
      const known = await submit('signup', { company: 'X', email: 'owner@acme.test', password: 'short' });
      const fresh = await submit('signup', { company: 'X', email: 'nobody-yet@acme.test', password: 'short' });
      assert.equal(known.status, 400);
      assert.equal(fresh.status, 400);
      const alert = (html: string) => /role="alert">([^<]*)/.exec(html)?.[1];
      assert.equal(alert(known.body), alert(fresh.body));
      assert.match(alert(known.body)!, /10 to 200 characters/);
    });
  });
}
