import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * `opentill webhook add|list|remove|test` as the README names them (docs/decisions.md §27): add
 * prints the endpoint and its secret once (JSON with --json), list never shows a secret, test sends a
 * signed event the standardwebhooks package verifies, remove ends it, and bad input is refused.
 */
const SECRET = 'cli-webhook-secret-0123456789-0123456789-ab';

for (const kind of await storeKinds()) {
  describe(`opentill webhook (${kind})`, () => {
    test('add prints the endpoint and its secret once; list, test and remove; production refuses a private URL', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'opentill-webhook-'));
      const db = await freshDatabase(kind);
      await db.database.close();
      const receiver = await startReceiver();
      const env = {
        OPENTILL_SECRET: SECRET,
        OPENTILL_DATA_DIR: dir,
        ...(db.url ? { DATABASE_URL: db.url } : { SQLITE_FILE: db.file! }),
      };
      const run = (...args: string[]) => cli(args, env);
      try {
        const created = await run('vendor', 'create', '--name', 'Hook Co', '--email', 'owner@hook.test', '--json');
        succeeded(created);
        const vendor = parseJson(created).vendor.id as string;
        const added = await run(
          'webhook',
          'add',
          '--vendor',
          vendor,
          '--env',
          'sandbox',
          '--url',
          `${receiver.url}/in`,
          '--json',
        );
        succeeded(added);
        const { endpoint, secret } = parseJson(added);
        assert.match(secret, /^whsec_/);
        assert.match(endpoint.id, /^we_/);
        assert.equal(endpoint.url, `${receiver.url}/in`);
        assert.deepEqual(endpoint.scope, { vendorId: vendor, environment: 'sandbox' });
        assert.equal(endpoint.enabled, true);

        const listed = await run('webhook', 'list', '--vendor', vendor, '--env', 'sandbox', '--json');
        succeeded(listed);
        assert.deepEqual(
          parseJson(listed).map((e: { id: string }) => e.id),
          [endpoint.id],
        );
        assert.ok(!listed.stdout.includes(secret.slice(6)), 'no secret in the list');
        const text = await run('webhook', 'list', '--vendor', vendor, '--env', 'sandbox');
        assert.match(text.stdout, new RegExp(`${endpoint.id}\\s+sandbox\\s+${receiver.url}/in\\s+enabled`));

        const tested = await run('webhook', 'test', '--vendor', vendor, '--env', 'sandbox', '--id', endpoint.id);
        succeeded(tested);
        assert.match(tested.stdout, /Delivered test event evt_\S+: the endpoint answered HTTP 200\./);
        const [got] = receiver.received;
        assert.equal(got!.json.type, 'webhook.test');
        assert.doesNotThrow(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>));

        receiver.answerWith(() => ({ status: 500 }));
        const refused = await run('webhook', 'test', '--vendor', vendor, '--env', 'sandbox', '--id', endpoint.id);
        assert.equal(refused.code, 1);
        assert.match(refused.stdout, /not delivered: answered HTTP 500/);

        failedWith(
          await run('webhook', 'add', '--vendor', vendor, '--env', 'production', '--url', 'https://127.0.0.1/in'),
          /127\.0\.0\.1 is not a public address/,
        );
        failedWith(
          await run('webhook', 'add', '--vendor', vendor, '--env', 'production', '--url', 'http://example.com/in'),
          /must be https/,
        );
        failedWith(
          await run('webhook', 'add', '--vendor', 'TC-VE_NOBODY', '--env', 'sandbox', '--url', receiver.url),
          /TC-VE_NOBODY/,
        );
        failedWith(
          await run('webhook', 'add', '--vendor', vendor, '--env', 'staging', '--url', receiver.url),
          /sandbox or production/,
        );
        failedWith(
          await run('webhook', 'remove', '--vendor', vendor, '--env', 'production', '--id', endpoint.id),
          /not found/,
        );

        failedWith(
          await run('webhook', 'enable', '--vendor', vendor, '--env', 'sandbox', '--id', endpoint.id),
          /A disabled webhook endpoint was not found/,
        );
        succeeded(await run('webhook', 'remove', '--vendor', vendor, '--env', 'sandbox', '--id', endpoint.id));
        assert.deepEqual(parseJson(await run('webhook', 'list', '--vendor', vendor, '--env', 'sandbox', '--json')), []);
        failedWith(
          await run('webhook', 'remove', '--vendor', vendor, '--env', 'sandbox', '--id', endpoint.id),
          /not found/,
        );
      } finally {
        await receiver.close();
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
