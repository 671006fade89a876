import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isLinkLocal, isPublicAddress } from '../../src/domain/webhooks/index.ts';
import { webhookTransport } from '../../src/outbound/webhook-transport.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { webhookWorld, type WebhookWorld } from '../helpers/webhook-world.ts';

/**
 * The SSRF guard (docs/decisions.md §27): production endpoints are https and public, checked when
 * added and again at every try on the address the connection then goes to (IPv4, IPv6, IPv4-mapped,
 * a name whose DNS answer changes to a private one); the sandbox may use loopback; the operator's
 * WEBHOOKS_ALLOW_PRIVATE lets production use private addresses. No secret is ever shown again.
 */
test('public and not public addresses', () => {
  for (const address of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])
    assert.equal(isPublicAddress(address), true, address);
  for (const address of [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:8.8.8.8',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '[::1]',
    'fe80::1%eth0',
    'localhost',
    'not an address',
  ])
    assert.equal(isPublicAddress(address), false, address);
  assert.equal(isPublicAddress('172.32.0.1'), true, 'just past 172.16/12');
  for (const address of [
    '169.254.169.254',
    '0.0.0.0',
    'fe80::1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '[fe80::1%eth0]',
  ])
    assert.equal(isLinkLocal(address), true, address);
  for (const address of ['127.0.0.1', '10.0.0.1', '::1', '::ffff:127.0.0.1', '93.184.216.34', 'fc00::1', '169.255.0.1'])
    assert.equal(isLinkLocal(address), false, address);
  assert.equal(isPublicAddress('11.0.0.1'), true, 'just past 10/8');
});

for (const kind of await storeKinds()) {
  describe(`webhook SSRF guard (${kind})`, () => {
    let w: WebhookWorld;
    let open: WebhookWorld;
    let receiver: Receiver;
    /** What the test's DNS answers for each name (the system resolver for anything else). */
    const dns = new Map<string, string[]>();
    const transport = webhookTransport(async (host) => dns.get(host) ?? [host]);

    before(async () => {
      receiver = await startReceiver();
      w = await webhookWorld(kind, { transport, webhooks: { timeoutMs: 2000 } });
      open = await webhookWorld(kind, { transport, env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    });
    after(async () => {
      await w.close();
      await open.close();
      await receiver.close();
    });

    test('production refuses http, loopback, private ranges, IPv6 and mapped forms, credentials, and names resolving privately', async () => {
      dns.set('inside.example', ['10.1.2.3']);
      dns.set('mixed.example', ['93.184.216.34', 'fd00::1']);
      dns.set('six.example', ['::1']);
      for (const url of [
        'http://hooks.example.com/',
        'https://localhost/hooks',
        'https://api.localhost/hooks',
        'https://127.0.0.1/hooks',
        'https://10.0.0.5/hooks',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hooks',
        'https://[::ffff:127.0.0.1]/hooks',
        'https://[fe80::1]/hooks',
        'https://intranet/hooks',
        'https://inside.example/hooks',
        'https://mixed.example/hooks',
        'https://six.example/hooks',
        'https://user:pass@hooks.example.com/',
        'ftp://hooks.example.com/',
        'not a url',
      ])
        await assert.rejects(w.services.webhooks.add(w.scope('production'), url), { code: 'INVALID_INPUT' }, url);
      assert.deepEqual(await w.services.webhooks.list(w.scope('production')), []);
      dns.set('hooks.example.com', ['93.184.216.34']);
      const { endpoint } = await w.services.webhooks.add(w.scope('production'), 'https://hooks.example.com/in');
      assert.equal(endpoint.url, 'https://hooks.example.com/in');
      await w.services.webhooks.remove(w.scope('production'), endpoint.id);
    });

    test('the sandbox may use loopback; WEBHOOKS_ALLOW_PRIVATE lets production use private addresses, still over https', async () => {
      assert.ok((await w.services.webhooks.add(w.scope(), 'http://127.0.0.1:9/hooks')).endpoint.id);
      assert.ok((await w.services.webhooks.add(w.scope(), 'http://localhost:9/hooks')).endpoint.id);
      assert.ok((await open.services.webhooks.add(open.scope('production'), 'https://127.0.0.1/hooks')).endpoint.id);
      await assert.rejects(open.services.webhooks.add(open.scope('production'), 'http://127.0.0.1/hooks'), {
        code: 'INVALID_INPUT',
      });
      for (const e of await w.services.webhooks.list(w.scope())) await w.services.webhooks.remove(w.scope(), e.id);
    });

    test('not even the sandbox reaches a link-local address (a cloud metadata service), unless the operator allows private ones', async () => {
      for (const url of [
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:169.254.169.254]/',
        'http://[fe80::1]/',
        'http://0.0.0.0:80/',
      ])
        await assert.rejects(w.services.webhooks.add(w.scope(), url), /link-local/, url);
      assert.ok((await open.services.webhooks.add(open.scope(), 'http://169.254.169.254/hooks')).endpoint.id);
      // A name the sandbox may use, resolving link-local at the try: not sent.
      dns.set('meta.test', ['169.254.169.254']);
      const { endpoint } = await w.services.webhooks.add(w.scope(), 'http://meta.test/hooks');
      const id = await w.subscription('meta@example.com');
      await w.services.webhooks.runDue();
      const [event] = (await w.events()).filter((e) => e.transactionId === id && e.endpointId === endpoint.id);
      assert.equal(event!.status, 'PENDING');
      assert.match(event!.lastError!, /169\.254\.169\.254, a link-local address: not sent/);
      await w.services.webhooks.remove(w.scope(), endpoint.id);
    });

    test('a production name that resolves privately at the try is not sent, whatever it said when added (IPv4 and IPv6)', async () => {
      dns.set('flip.example', ['93.184.216.34']);
      const { endpoint } = await w.services.webhooks.add(w.scope('production'), 'https://flip.example/hooks');
      for (const [i, answer] of [
        ['127.0.0.1'],
        ['::1'],
        ['::ffff:10.0.0.1'],
        ['93.184.216.34', '192.168.0.9'],
      ].entries()) {
        dns.set('flip.example', answer);
        const id = await w.subscription(`flip${i}@example.com`, 'production');
        await w.services.webhooks.runDue();
        const [event] = (await w.events('production')).filter((e) => e.transactionId === id);
        assert.equal(event!.status, 'PENDING');
        assert.match(event!.lastError!, /not a public address: not sent/, answer.join());
      }
      await w.services.webhooks.remove(w.scope('production'), endpoint.id);
    });

    test('the connection goes to the address that was checked', async () => {
      // The sandbox allows loopback: a made-up name the test's DNS points at the receiver reaches it.
      dns.set('receiver.test', ['127.0.0.1']);
      const port = new URL(receiver.url).port;
      const added = await w.services.webhooks.add(w.scope(), `http://receiver.test:${port}/named`);
      receiver.useSecret(added.secret);
      const id = await w.subscription('named@example.com');
      await w.services.webhooks.runDue();
      const got = receiver.accepted().filter((r) => r.json.data.id === id);
      assert.equal(got.length, 1);
      assert.equal(got[0]!.path, '/named');
      assert.equal(got[0]!.headers.host, `receiver.test:${port}`);
      assert.ok(got[0]!.verified);
      await w.services.webhooks.remove(w.scope(), added.endpoint.id);
    });

    test('the secret is shown once: sealed in the database, in no list, log or event', async () => {
      const { endpoint, secret } = await w.services.webhooks.add(w.scope(), `${receiver.url}/secret`);
      const rows = await w.services.database.kysely.selectFrom('webhook_endpoints').selectAll().execute();
      assert.ok(!JSON.stringify(rows).includes(secret.slice(6)), 'not in the database as it is');
      assert.ok(!JSON.stringify(await w.services.webhooks.list(w.scope())).includes(secret.slice(6)));
      await w.subscription('secret@example.com');
      await w.services.webhooks.runDue();
      const log = await w.services.webhooks.log(w.scope(), { limit: 100 });
      assert.ok(log.length > 0);
      assert.ok(!JSON.stringify(log).includes(secret.slice(6)));
      assert.ok(!receiver.received.some((r) => r.body.includes(secret.slice(6))));
      await w.services.webhooks.remove(w.scope(), endpoint.id);
    });
  });
}
