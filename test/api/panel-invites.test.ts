import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';
import { startTestApp, storeKinds } from '../helpers/test-app.ts';

/**
 * One account for the CLI and the panel (issue 14): a vendor made with the CLI gets a panel login
 * through a one-time link (`opentill vendor invite`), which works once, for a day.
 */
const form = (password: string) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ password }),
});

for (const kind of await storeKinds()) {
  describe(`panel invitations (${kind})`, () => {
    test('the link sets the password once; then the vendor signs in with its e-mail; an old or forged link does nothing', async () => {
      const clock = fixedClock(new Date());
      const t = await startTestApp(kind, { clock });
      try {
        const vendor = await t.services.catalog.createVendor({ name: 'CLI Vendor', email: 'owner@cli-vendor.test' });
        const { token } = await t.services.panelInvites.issue(vendor.id);
        const url = `${t.url}/panel/invite/${token}`;
        const page = await fetch(url);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /owner@cli-vendor\.test/);

        const weak = await fetch(url, form('short'));
        assert.equal(weak.status, 400);
        assert.match(await weak.text(), /aria-invalid="true"[^>]*>|10 to 200 characters/);

        const set = await fetch(url, form('a long enough password'));
        assert.equal(set.status, 303);
        assert.equal(new URL(set.headers.get('location')!, url).pathname, '/panel/invite-set');
        assert.equal((await fetch(new URL(set.headers.get('location')!, url))).status, 200);
        const session = await t.services.panel.signIn({
          email: 'owner@cli-vendor.test',
          password: 'a long enough password',
        });
        assert.ok(session.cookie);

        // Used: the same link again changes nothing.
        assert.equal((await fetch(url, form('another long password'))).status, 410);
        assert.equal((await fetch(url)).status, 410);
        await assert.rejects(
          t.services.panel.signIn({ email: 'owner@cli-vendor.test', password: 'another long password' }),
        );

        // A new link resets the password; a day later it no longer works.
        const second = await t.services.panelInvites.issue(vendor.id);
        clock.advance(25 * 3600_000);
        assert.equal((await fetch(`${t.url}/panel/invite/${second.token}`, form('a third long password'))).status, 410);
        const forged = `${second.token.split('.')[0]}.${'A'.repeat(43)}`;
        assert.equal((await fetch(`${t.url}/panel/invite/${forged}`)).status, 404);
        assert.equal((await fetch(`${t.url}/panel/invite/nonsense`)).status, 404);
      } finally {
        await t.close();
      }
    });

    test("an e-mail that signs in to another vendor's panel is not taken over", async () => {
      const t = await startTestApp(kind);
      try {
        const a = await t.services.catalog.createVendor({ name: 'A', email: 'shared@example.test' });
        const b = await t.services.catalog.createVendor({ name: 'B', email: 'shared@example.test' });
        await t.services.panelInvites.createLogin(a.id);
        const { token } = await t.services.panelInvites.issue(b.id);
        const res = await fetch(`${t.url}/panel/invite/${token}`, form('a long enough password'));
        assert.equal(res.status, 400);
        assert.match(await res.text(), /signs in to another vendor/);
      } finally {
        await t.close();
      }
    });
  });
}

describe('opentill vendor invite', () => {
  test('prints a one-time link under BASE_URL, and refuses an unknown vendor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opentill-invite-'));
    const run = (...args: string[]) =>
      cli(args, {
        OPENTILL_SECRET: 'cli-invite-secret-0123456789-0123456789',
        OPENTILL_DATA_DIR: dir,
        BASE_URL: 'https://pay.example.com',
      });
    try {
      const created = await run('vendor', 'create', '--name', 'Acme', '--email', 'owner@acme.test', '--json');
      succeeded(created);
      const id = parseJson(created).vendor.id as string;
      const invite = await run('vendor', 'invite', '--vendor', id);
      succeeded(invite);
      assert.match(invite.stdout, /^https:\/\/pay\.example\.com\/panel\/invite\/[\w-]+\.[\w-]+$/m);
      const json = await run('vendor', 'invite', '--vendor', id, '--json');
      assert.ok(!Number.isNaN(Date.parse(parseJson(json).expiresAt)));
      const unknown = await run('vendor', 'invite', '--vendor', 'TC-VE_nobody');
      assert.notEqual(unknown.code, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
