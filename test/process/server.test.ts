import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli } from '../helpers/cli.ts';
import { freePort, logLines, SERVER_SECRET, ServerProcess as Server, within } from '../helpers/server-process.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

describe('opentill serve', () => {
  let dataDir: string;
  let first: Server;
  let credential: string;
  let curlUrl: string;
  let firstStartPurchases: number;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'opentill-serve-'));
    first = new Server(await freePort(), dataDir);
    await within(first.started(), 'the first start');
  });

  after(async () => {
    await first?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the very first start prints the demo sandbox credential and a curl line that works', async () => {
    const banner = first.stdout;
    assert.match(
      banner,
      new RegExp(
        `opentill is listening on http://localhost:${first.port} \\(sandbox: http://localhost:${first.port}/sandbox\\), store: SQLite`,
      ),
    );
    assert.match(banner, /First start: a demo vendor/);
    assert.match(
      banner,
      /^Panel login \(shown only now\): http:\/\/localhost:\d+\/panel as owner@demo\.opentill\.test, password [\w-]{16}$/m,
    );
    const shown = banner.match(/^Sandbox API credential \(shown only now\): (test_\S+:\S+)$/m);
    assert.ok(shown, banner);
    credential = shown[1]!;
    const curl = banner.match(/^ {2}curl -H 'Authorization: ([^']+)' (\S+)$/m);
    assert.ok(curl, banner);
    assert.equal(curl[1], credential);
    curlUrl = curl[2]!;
    assert.equal(curlUrl, `http://localhost:${first.port}/sandbox/v1/transactions/bob@example.com`);

    // What the curl line does, with the host the server listens on.
    const res = await fetch(curlUrl.replace('localhost', '127.0.0.1'), { headers: { authorization: credential } });
    assert.equal(res.status, 200);
    const purchases = (await res.json()) as any[];
    assert.ok(purchases.length > 0, 'bob has demo purchases');
    for (const tx of purchases) {
      assert.match(tx.id, /^TC-TR_/);
      assert.equal(tx.email, 'bob@example.com');
    }
    firstStartPurchases = purchases.length;

    // A sandbox credential is no production credential.
    const production = await fetch(`${first.url}/v1/transactions/bob@example.com`, {
      headers: { authorization: credential },
    });
    assert.equal(production.status, 401);
  });

  test("the banner's two commands, run as printed, make the vendor's app hear the next sale, signed", async () => {
    const commands = [...first.stdout.matchAll(/^ {2}npm run opentill -- (.+)$/gm)].map((m) => m[1]!.split(' '));
    assert.equal(commands.length, 2, first.stdout);
    const [add, purchase] = commands as [string[], string[]];
    assert.deepEqual(
      [add.slice(0, 2), purchase.slice(0, 2)],
      [
        ['webhook', 'add'],
        ['sandbox', 'purchase'],
      ],
    );
    const receiver = await startReceiver();
    try {
      // Only the endpoint's address is this test's own (the banner names the app's usual port).
      const url = add.indexOf('--url') + 1;
      assert.equal(add[url], 'http://localhost:3001/hooks');
      const env = { OPENTILL_DATA_DIR: dataDir, OPENTILL_SECRET: SERVER_SECRET };
      const added = await cli(
        add.map((a, i) => (i === url ? `${receiver.url}/hooks` : a)),
        env,
      );
      assert.equal(added.code, 0, added.stderr);
      receiver.useSecret(added.stdout.match(/whsec_\S+/)![0]);
      const bought = await cli(purchase, env);
      assert.equal(bought.code, 0, bought.stderr);
      const heard = async () => {
        while (!receiver.accepted().some((r) => r.json?.type === 'transaction.new'))
          await new Promise((r) => setTimeout(r, 50));
      };
      await within(heard(), 'the webhook of the sale');
      const [event] = receiver.accepted();
      assert.ok(event!.verified, 'signed with the secret add printed');
      assert.equal(event!.json.data.email, 'you@example.com');
    } finally {
      await receiver.close();
    }
  });

  test('/healthz answers 200 {status: ok} and says that production has no payment processor configured', async () => {
    const res = await fetch(`${first.url}/healthz`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.status, 'ok');
    assert.equal(body.payments.production.processor, null);
    assert.match(body.payments.production.detail, /No payment processor is configured for production/);
    assert.deepEqual(body.payments.sandbox, {
      processor: 'SANDBOX',
      detail: "virtual test cards in opentill's own form",
    });
  });

  test('/openapi.json is OpenAPI 3.1.0 and covers every operation of the API', async () => {
    const res = await fetch(`${first.url}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`),
    );
    // SPEC 4.1's 13 items: 5 and 6 share one method and path, 9 and 10 differ by method (and a segment).
    const expected = [
      'GET /v1/generate-url-to-manage-transactions/{}', // 1
      'GET /v1/generate-url-to-admin', // 2
      'GET /v1/transactions/{}', // 3
      'GET /v1/transaction/{}', // 4
      'POST /v1/transaction/{}', // 5 and 6
      'POST /v1/cancel-subscription/{}', // 7
      'POST /v1/refund-transaction/{}', // 8
      'GET /v1/changed-transactions', // 9
      'POST /v1/changed-transactions/{}', // 10
      'POST /v1/customize-product/{}', // 11
      'POST /v1/charge-vaulted/{}', // 12
      'GET /v1/check-licence/{}/{}', // 13
      // opentill's own addition: the sandbox clock (production answers 404).
      'GET /v1/clock',
      'POST /v1/clock/advance',
      // opentill's own addition: the product API (docs/decisions.md §28).
      'GET /v1/products',
      'POST /v1/products',
      'GET /v1/products/{}',
      'POST /v1/products/{}',
      'POST /v1/products/{}/archive',
      'POST /v1/products/{}/unarchive',
      // opentill's own additions of issue 37: coupons (§38), seats (§39), licence activations (§40), pause (§41).
      'GET /v1/coupons',
      'POST /v1/coupons',
      'GET /v1/coupons/{}',
      'POST /v1/coupons/{}/revoke',
      'POST /v1/update-quantity/{}',
      'GET /v1/licences/{}',
      'POST /v1/licences/{}/activate',
      'POST /v1/licences/{}/deactivate',
      'POST /v1/pause-subscription/{}',
      'POST /v1/resume-subscription/{}',
      // The public price endpoint the client script calls (no credentials).
      'GET /public/v1/price/{}',
    ];
    assert.deepEqual([...operations].sort(), [...expected].sort());
    assert.equal(new Set(Object.keys(doc.paths)).size, 27);
    // opentill's own operations say so; the original API's do not.
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>))
      for (const op of Object.values(ops))
        assert.equal(
          op['x-opentill-extension'] === true,
          /^\/v1\/(products|clock|coupons|update-quantity|licences|pause-subscription|resume-subscription)\b/.test(
            path,
          ),
          path,
        );
    // Items 5 and 6: the one POST documents both body fields.
    const update = JSON.stringify(
      doc.paths[Object.keys(doc.paths).find((p) => p.startsWith('/v1/transaction/'))!].post.requestBody,
    );
    assert.match(update, /assignEmail/);
    assert.match(update, /payload/);
    // The sandbox's copy of the routes is not listed twice; both servers are.
    assert.ok(Object.keys(doc.paths).every((p) => !p.startsWith('/sandbox')));
    assert.deepEqual(
      (doc.servers as { url: string }[]).map((s) => s.url),
      [`http://localhost:${first.port}`, `http://localhost:${first.port}/sandbox`],
    );
  });

  test('/docs serves the API reference as HTML', async () => {
    const res = await fetch(`${first.url}/docs`, { redirect: 'follow' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await res.text(), /<html/i);
  });

  test('request log lines are JSON with a reqId and never carry the Authorization value', async () => {
    const before = first.stdout.length;
    const res = await fetch(`${first.url}/sandbox/v1/transactions/bob%40example.com`, {
      headers: { authorization: credential, 'x-request-id': 'log-check-1' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'log-check-1');
    const password = credential.slice(credential.indexOf(':') + 1);
    const wrong = await fetch(`${first.url}/sandbox/v1/transactions/bob%40example.com`, {
      headers: { authorization: `${credential.split(':')[0]}:wrong-${password}` },
    });
    assert.equal(wrong.status, 401);
    await wrong.text();
    // Each request logs "request completed"; wait for both (the log is written asynchronously).
    await within(
      first.waitFor(
        /"reqId":"log-check-1"[^\n]*"request completed"[^]*\n[^]*"statusCode":401[^\n]*"request completed"/,
      ),
      'the request log lines',
    );

    const logged = first.stdout.slice(before);
    // One line per request, as it completes.
    const lines = logLines(logged).filter((l) => l.req || l.res);
    assert.ok(lines.length >= 2, logged);
    for (const line of lines) assert.equal(typeof line.reqId, 'string', JSON.stringify(line));
    assert.ok(lines.some((l) => l.reqId === 'log-check-1' && l.res?.statusCode === 200));
    assert.equal(logged.includes(password), false, 'the password is not logged');
    assert.equal(logged.includes(credential), false, 'the Authorization value is not logged');
    assert.doesNotMatch(logged, /authorization/i);
  });

  test('a second start on the same data directory does not seed again', async () => {
    // Stop the first server; it must exit cleanly.
    first.signal('SIGTERM');
    const stopped = await within(first.exited, 'the first server to exit');
    assert.deepEqual(stopped, { code: 0, signal: null });
    assert.equal(first.stderr, '');

    const second = new Server(await freePort(), dataDir);
    try {
      await within(second.started(), 'the second start');
      assert.match(second.stdout, /opentill is listening/);
      assert.doesNotMatch(second.stdout, /First start/);
      assert.doesNotMatch(second.stdout, /credential/i);
      assert.doesNotMatch(second.stdout, /test_/);

      // The first start's credential still works, and the demo data was not duplicated.
      const res = await fetch(`${second.url}/sandbox/v1/transactions/bob@example.com`, {
        headers: { authorization: credential },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as unknown[]).length, firstStartPurchases);

      // Nothing of the credential in anything this process printed (it never printed it itself).
      await within(second.waitFor(/"statusCode":200[^\n]*"request completed"/), 'the request log line');
      const password = credential.slice(credential.indexOf(':') + 1);
      assert.equal(second.stdout.includes(password), false);
      assert.equal(second.stderr.includes(password), false);

      // Graceful shutdown: SIGTERM ends it with exit code 0 and no error.
      second.signal('SIGTERM');
      const exit = await within(second.exited, 'the server to exit on SIGTERM', 15_000);
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.equal(second.stderr, '');
      const levels = logLines(second.stdout).map((l) => l.level as number);
      assert.ok(
        levels.every((level) => level < 50),
        `no error log lines:\n${second.stdout}`,
      );
      assert.ok(logLines(second.stdout).some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'));
    } finally {
      await second.kill();
    }
  });
});

describe('opentill serve: graceful shutdown', () => {
  test('SIGTERM lets an in-flight request finish, refuses new connections, then exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opentill-shutdown-'));
    // At debug, a request logs "incoming request" as it arrives: how this test knows it is in flight.
    const server = new Server(await freePort(), dataDir, { env: { LOG_LEVEL: 'debug' } });
    try {
      await within(server.started(), 'the start');
      const credential = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
      const listed = await fetch(`${server.url}/sandbox/v1/transactions/bob@example.com`, {
        headers: { authorization: credential },
      });
      const id = ((await listed.json()) as { id: string }[])[0]!.id;

      // A request whose headers and half of its body have arrived: in flight when SIGTERM comes.
      const body = JSON.stringify({ payload: 'written during shutdown' });
      const inFlight = httpRequest(`${server.url}/sandbox/v1/transaction/${id}`, {
        method: 'POST',
        headers: {
          authorization: credential,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      const response = new Promise<IncomingMessage>((done, reject) =>
        inFlight.on('response', done).on('error', reject),
      );
      inFlight.write(body.slice(0, 10));
      await within(
        server.waitFor(/"url":"\/sandbox\/v1\/transaction\/:transactionId"[^\n]*"incoming request"/),
        'the server to see the request',
      );

      server.signal('SIGTERM');
      await within(server.waitFor(/"msg":"shutting down"/), 'the shutdown to begin');
      // The listening socket is closed: a new connection is refused.
      await assert.rejects(fetch(`${server.url}/healthz`));

      inFlight.end(body.slice(10));
      const res = await within(response, 'the in-flight response');
      let text = '';
      for await (const chunk of res) text += chunk;
      assert.equal(res.statusCode, 200, text);
      assert.equal(JSON.parse(text).payload, 'written during shutdown');

      assert.deepEqual(await within(server.exited, 'the server to exit'), { code: 0, signal: null });
      assert.equal(server.stderr, '');
    } finally {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
