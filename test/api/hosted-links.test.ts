import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { startTestApp, storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const clock = fixedClock(new Date('2030-03-01T12:00:00.000Z'));

for (const kind of await storeKinds()) {
  describe(`temporary URLs of hosted pages (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    /** The URL the API answered, opened on the test server instead of the configured host. */
    const open = async (url: string) => {
      const parsed = new URL(url);
      assert.equal(parsed.origin, 'http://opentill.test');
      const res = await fetch(`${t.url}${parsed.pathname}`);
      return {
        status: res.status,
        type: res.headers.get('content-type') ?? '',
        csp: res.headers.get('content-security-policy'),
        html: await res.text(),
      };
    };
    const manageUrl = async (email: string, environment: 'sandbox' | 'production' = 'sandbox') => {
      const res = await v.api(`/v1/generate-url-to-manage-transactions/${encodeURIComponent(email)}`, { environment });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['url']);
      return res.json.url as string;
    };
    const adminUrl = async (environment: 'sandbox' | 'production' = 'sandbox') => {
      const res = await v.api('/v1/generate-url-to-admin', { environment });
      assert.equal(res.status, 200, res.text);
      return res.json.url as string;
    };
    /** Replaces one character of the token's signature part. */
    const forgeSignature = (url: string) => url.slice(0, -1) + (url.endsWith('A') ? 'B' : 'A');

    test('the management URL lives under the sandbox base and opens a page for that customer', async () => {
      const url = await manageUrl('Buyer+1@Example.com');
      assert.match(url, /^http:\/\/opentill\.test\/sandbox\/manage\/[\w-]+\.[\w-]+$/);
      const page = await open(url);
      assert.equal(page.status, 200);
      assert.match(page.type, /^text\/html/);
      assert.match(page.html, /buyer\+1@example\.com/);
      assert.ok(page.csp, 'hosted pages send a Content-Security-Policy');
    });

    test('production URLs live under the production base and do not open in the sandbox', async () => {
      const url = await manageUrl('prod@example.com', 'production');
      assert.match(url, /^http:\/\/opentill\.test\/manage\//);
      assert.equal((await open(url)).status, 200);
      const token = new URL(url).pathname.split('/').pop();
      assert.equal((await open(`http://opentill.test/sandbox/manage/${token}`)).status, 404);
    });

    test('each call issues its own URL', async () => {
      const first = await adminUrl();
      clock.advance(1000);
      assert.notEqual(await adminUrl(), first);
    });

    test('a management URL works for an hour and then says the link has expired', async () => {
      const url = await manageUrl('hour@example.com');
      clock.advance(3600_000 - 1000);
      assert.equal((await open(url)).status, 200);
      clock.advance(1000);
      const expired = await open(url);
      assert.equal(expired.status, 410);
      assert.match(expired.html, /expired/i);
    });

    test('an admin URL must be opened within 15 minutes', async () => {
      const url = await adminUrl();
      assert.match(url, /^http:\/\/opentill\.test\/sandbox\/admin\//);
      clock.advance(15 * 60_000 - 1000);
      assert.equal((await open(url)).status, 200);
      clock.advance(1000);
      assert.equal((await open(url)).status, 410);
    });

    test('forged tokens are refused: a changed signature, changed claims, a made-up token, the other purpose', async () => {
      const url = await manageUrl('victim@example.com');
      assert.equal((await open(forgeSignature(url))).status, 404);

      // Claims rewritten to another customer, with the original signature kept.
      const token = new URL(url).pathname.split('/').pop()!;
      const [body, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
      assert.equal(claims.subject, 'victim@example.com');
      const rewritten = Buffer.from(
        JSON.stringify({ ...claims, subject: 'attacker@example.com', expiresAt: claims.expiresAt + 86400 }),
      ).toString('base64url');
      const tampered = await open(`http://opentill.test/sandbox/manage/${rewritten}.${signature}`);
      assert.equal(tampered.status, 404);
      assert.doesNotMatch(tampered.html, /attacker/);

      for (const junk of ['x', 'a.b', 'a.b.c', '..', encodeURIComponent('<script>')]) {
        const page = await open(`http://opentill.test/sandbox/manage/${junk}`);
        assert.equal(page.status, 404, junk);
        assert.doesNotMatch(page.html, /<script>/);
      }

      // A valid admin token is not a management token, and the other way round.
      const admin = new URL(await adminUrl()).pathname.split('/').pop();
      assert.equal((await open(`http://opentill.test/sandbox/manage/${admin}`)).status, 404);
      assert.equal((await open(`http://opentill.test/sandbox/admin/${token}`)).status, 404);
    });

    test('a token signed with another server secret is refused', async () => {
      const other = await startTestApp(kind, {
        clock,
        env: { OPENTILL_SECRET: 'another-secret-another-secret-another-0123' },
      });
      try {
        const url = await manageUrl('someone@example.com');
        const res = await fetch(`${other.url}${new URL(url).pathname}`);
        assert.equal(res.status, 404);
      } finally {
        await other.close();
      }
    });
  });
}
