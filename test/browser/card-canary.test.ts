import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, screenshot } from '../../support/chromium.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';
import { startRecordingProxy } from '../helpers/recording-proxy.ts';
import { freePort, logLines, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';
import { startStripeStandIn } from '../helpers/stripe-standin/index.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The card-number canary (issue 13): `opentill serve` as an operator runs it (a child process on a
 * SQLite file, production on Stripe, here the stand-in), behind a proxy that keeps every byte it was
 * sent. A customer types a distinctive card into production checkout in Chromium and pays; nothing
 * else happens. Then the database file, its WAL and shared-memory files (copied while the server ran,
 * and again after it stopped, the WAL kept by a reader of the test's own), every other file of the data
 * directory, every value of every table, the server's stdout and stderr, and every byte opentill
 * received and answered (raw, and URL-decoded) are searched for the number (whole, in groups with any
 * separator, as an integer) and the CVC: found nowhere. The canary is live: the search finds both in
 * what the browser sent the processor, the number reached the processor (a PaymentMethod with its last
 * 4 exists), and the purchase is booked, so the test cannot pass by never paying.
 */

/** American Express test card of Stripe's documentation (a success), not one of the sandbox's cards. */
const CARD = '3782 822463 10005';
const DIGITS = CARD.replace(/\D/g, '');
/** Four digits (American Express) with a leading zero: no port, pid, length, year or amount prints like that. */
const CVC = '0729';
/** The number's digits with up to three characters of anything between them: spaces, dashes, "+", "%20", the NUL bytes of UTF-16. */
const NUMBER_PATTERN = new RegExp(DIGITS.split('').join('[^0-9]{0,3}'));
/** The number as SQLite keeps an integer of its size (8 bytes, big-endian). */
const NUMBER_INT64 = (() => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(BigInt(DIGITS));
  return bytes;
})();
/** The CVC standing alone: not part of a longer number, word, hex id or UUID. */
const CVC_PATTERN = new RegExp(`(?<![0-9A-Za-z-])${CVC}(?![0-9A-Za-z-])`);

/** Form and URL encoding undone ("+" and %XX), also where the text is not valid UTF-8. */
function urlDecoded(text: string): string {
  const plus = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Where the number or the CVC shows in `content`, with some context. */
function sightings(where: string, content: Buffer | string): string[] {
  const text = typeof content === 'string' ? content : content.toString('latin1');
  const found: string[] = [];
  const show = (what: string, index: number) =>
    `the ${what} in ${where} at ${index}: ${JSON.stringify(text.slice(Math.max(0, index - 50), index + 50))}`;
  const number = NUMBER_PATTERN.exec(text);
  if (number) found.push(show('card number', number.index));
  const cvc = CVC_PATTERN.exec(text);
  if (cvc) found.push(show('CVC', cvc.index));
  if (typeof content !== 'string' && content.includes(NUMBER_INT64))
    found.push(show('card number (as an integer)', content.indexOf(NUMBER_INT64)));
  return found;
}

/** Every value of every table, through a connection that sees the WAL: the number or the CVC in any column, text or number. */
function sightingsInTables(db: SQLite.Database): { found: string[]; values: number } {
  const found: string[] = [];
  let values = 0;
  const tables = db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[];
  for (const table of tables) {
    for (const row of db
      .prepare(`select * from "${table.replace(/"/g, '""')}"`)
      .raw()
      .iterate() as Iterable<unknown[]>) {
      for (const value of row) {
        values++;
        const where = `table ${table}`;
        if (typeof value === 'string')
          found.push(...sightings(where, value), ...sightings(`${where} (URL-decoded)`, urlDecoded(value)));
        else if (Buffer.isBuffer(value)) found.push(...sightings(where, value));
        else if (
          (typeof value === 'number' || typeof value === 'bigint') &&
          [DIGITS, String(Number(CVC))].includes(String(value))
        )
          found.push(`the card number or CVC as a number in ${where}: ${String(value)}`);
      }
    }
  }
  return { found, values };
}

describe('card-number canary', () => {
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('a card typed into production checkout is nowhere in the database, its WAL, the log or what opentill received', async () => {
    const started = Date.now();
    const dataDir = mkdtempSync(join(tmpdir(), 'opentill-canary-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const s = await startStripeStandIn({ webhookDelivery: 'auto' });
    cleanup.push(() => s.close());
    const port = await freePort();
    // All opentill hears comes through here: the browser, Stripe's webhook deliveries, the test's API call.
    const proxy = await startRecordingProxy({ port });
    cleanup.push(() => proxy.close());

    // The operator's steps: the keys, `opentill stripe setup` (the webhook endpoint at the public URL, the proxy's), a vendor, a product.
    const env = {
      OPENTILL_DATA_DIR: dataDir,
      OPENTILL_SECRET: SERVER_SECRET,
      BASE_URL: proxy.url,
      STRIPE_SECRET_KEY: s.secretKey,
      STRIPE_PUBLISHABLE_KEY: s.publishableKey,
      STRIPE_API_URL: s.url,
      STRIPE_JS_URL: s.jsUrl,
    };
    const [setup, vendor] = await Promise.all([
      cli(['stripe', 'setup', '--json'], env),
      cli(['vendor', 'create', '--name', 'Canary Software', '--email', 'owner@canary.test', '--json'], env),
    ]);
    succeeded(setup);
    succeeded(vendor);
    const webhookSecret = parseJson(setup).signingSecret as string;
    assert.match(webhookSecret, /^whsec_/);
    const { vendor: created, credentials } = parseJson(vendor) as {
      vendor: { id: string };
      credentials: { production: string };
    };
    // Production checkout opens once the seller's identity is complete (docs/decisions.md §24).
    const identity = ['--seller-name', 'Canary Software Ltd', '--address', '1 Test Street|Testville'];
    succeeded(
      await cli(['vendor', 'settings', '--vendor', created.id, ...identity, '--country', 'US', '--tax-id', 'T-1'], env),
    );
    const product = await cli(
      [
        'product',
        'create',
        '--vendor',
        created.id,
        '--env',
        'production',
        '--name',
        'Canary Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:49',
        '--json',
      ],
      env,
    );
    succeeded(product);
    const productId = parseJson(product).id as string;

    // BASE_URL through Node's --env-file: ServerProcess keeps the test's own BASE_URL from the child.
    const envFile = join(dataDir, 'serve.env');
    writeFileSync(envFile, `BASE_URL=${proxy.url}\n`);
    const server = new ServerProcess(port, dataDir, {
      nodeArgs: [`--env-file=${envFile}`],
      env: {
        STRIPE_SECRET_KEY: s.secretKey,
        STRIPE_PUBLISHABLE_KEY: s.publishableKey,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_URL: s.url,
        STRIPE_JS_URL: s.jsUrl,
        LOG_LEVEL: 'debug',
        BILLING_INTERVAL_SECONDS: '1',
      },
    });
    cleanup.push(() => server.kill());
    await within(server.started(), 'the server start');
    assert.ok(server.stdout.includes(`listening on ${proxy.url} `), server.stdout);

    // The customer, in Chromium: opentill only through the proxy.
    const browser: Browser = await sharedChromium();
    cleanup.push(() => browser.close());
    const page = await browser.newPage({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const elsewhere = new Set<string>();
    const toProcessor: string[] = [];
    page.on('request', (r) => {
      const origin = new URL(r.url()).origin;
      if (origin === s.url) toProcessor.push(`${r.method()} ${new URL(r.url()).pathname} ${r.postData() ?? ''}`);
      else if (origin !== proxy.url) elsewhere.add(r.url());
    });
    await page.goto(`${proxy.url}/payment/product/${productId}`);
    await page.fill('#email', 'canary@example.com');
    const card = page.frameLocator('iframe[title="Secure payment input frame"]');
    await card.getByLabel('Card number').fill(CARD);
    await card.getByLabel('Expiration date').fill('08 / 31');
    await card.getByLabel('Security code').fill(CVC);
    assert.equal(await card.getByLabel('Card number').inputValue(), CARD);
    await page.click('#pay');
    await page.waitForURL(/\/confirm\//);
    await page.locator('#receipt').waitFor();
    assert.match((await page.locator('#receipt').textContent())!, /Payment of \$49\.00 received/);
    const transactionId = (await page.locator('[data-testid="transaction-id"]').textContent())!;
    await screenshot(page, `${ARTIFACTS}card-canary-receipt.png`, { fullPage: true });
    await browser.close();
    assert.deepEqual(
      [...elsewhere],
      [],
      'the browser spoke to opentill (through the proxy) and to the processor, nothing else',
    );

    // The search finds what it looks for: the card as the element sent it to the processor.
    const cardPosts = toProcessor.filter((r) => r.startsWith('POST /v1/payment_methods '));
    assert.equal(cardPosts.length, 1, `the element posted the card to the processor once: ${toProcessor.join('\n')}`);
    const control = sightings('the POST to the processor', urlDecoded(cardPosts[0]!));
    assert.equal(control.length, 2, `the search finds the number and the CVC where they are: ${control.join('\n')}`);

    // Stripe's events reach opentill through the proxy, and the worker acts on them.
    await within(s.webhooksSettled(), 'the webhook deliveries');
    const delivered = s.deliveries.filter((d) => d.endpointUrl === `${proxy.url}/webhooks/stripe`);
    assert.ok(delivered.length >= 1, `events were delivered to opentill: ${JSON.stringify(s.deliveries)}`);
    assert.ok(
      delivered.every((d) => d.status === 200),
      `opentill took every event: ${JSON.stringify(delivered)}`,
    );
    const processed = () =>
      logLines(server.stdout)
        .filter((l) => l.msg === 'billing run')
        .reduce((n, l) => n + (l.billing?.events?.processed ?? 0), 0);
    await within(
      (async () => {
        while (processed() < delivered.length) await new Promise((done) => setTimeout(done, 50));
      })(),
      `the worker acting on ${delivered.length} events`,
    );

    // The purchase is booked (asked through the proxy too) ...
    const res = await fetch(`${proxy.url}/v1/transactions/canary%40example.com`, {
      headers: { authorization: credentials.production },
    });
    const listed = (await res.json()) as { id: string; transactionStatus: string }[];
    assert.deepEqual(
      listed.map((t) => [t.id, t.transactionStatus]),
      [[transactionId, 'ONE_TIME_PAYMENT_STATUS_PAID']],
    );
    // ... and paid at the processor with a PaymentMethod made of the number: it did reach the processor.
    const stripe = s.client();
    const intents = (await stripe.paymentIntents.list({ limit: 10 })).data.filter((i) => i.status === 'succeeded');
    assert.equal(intents.length, 1);
    const method = await stripe.paymentMethods.retrieve(intents[0]!.payment_method as string);
    assert.deepEqual(
      [method.card?.brand, method.card?.last4, method.card?.exp_month, intents[0]!.amount],
      ['amex', DIGITS.slice(-4), 8, 4900],
    );
    const posted = s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_methods');
    assert.equal(posted.length, 1);
    assert.match(
      posted[0]!.headers.authorization ?? '',
      /^Bearer pk_test_/,
      'with the publishable key: from the browser, not from opentill',
    );

    // The database files while the server runs: the purchase is in the WAL, not checkpointed yet.
    const db = join(dataDir, 'opentill.db');
    const material: Record<string, Buffer | string> = {};
    for (const suffix of ['', '-wal', '-shm'])
      material[`opentill.db${suffix} (server running)`] = readFileSync(db + suffix);
    assert.ok(
      material['opentill.db-wal (server running)']!.includes(transactionId),
      'the purchase is in the WAL: searching it means something',
    );

    // A reader of the test's own keeps the WAL: the server's connection, not the last to close, neither checkpoints nor removes it.
    const observer = new SQLite(db, { readonly: true, fileMustExist: true });
    cleanup.push(() => observer.open && observer.close());
    assert.equal(observer.prepare('select count(*) from transactions where id = ?').pluck().get(transactionId), 1);
    server.signal('SIGTERM');
    assert.equal((await within(server.exited, 'the server stop')).code, 0, server.stderr);
    for (const name of readdirSync(dataDir, { recursive: true }) as string[]) {
      const path = join(dataDir, name);
      if (statSync(path).isFile()) material[`${name} (server stopped)`] = readFileSync(path);
    }
    for (const name of ['opentill.db', 'opentill.db-wal', 'opentill.db-shm'])
      assert.ok(`${name} (server stopped)` in material, `${name} is kept`);
    const tables = sightingsInTables(observer);
    observer.close();
    assert.ok(tables.values > 100, `every value of every table: ${tables.values}`);

    material['server stdout'] = server.stdout;
    material['server stderr'] = server.stderr;
    material['every byte opentill received'] = proxy.toServer();
    material['every byte opentill received, URL-decoded'] = urlDecoded(proxy.toServer().toString('latin1'));
    material['every byte opentill answered'] = proxy.fromServer();
    const requests = proxy.requests();
    for (const [i, r] of requests.entries())
      material[`request ${i + 1} (${r.method} ${r.target}), URL-decoded`] = urlDecoded(
        `${r.head}\r\n\r\n${r.body.toString('utf8')}`,
      );

    // The material is the purchase's: its requests went through the proxy, and the server logged them.
    const seen = requests.map((r) => `${r.method} ${r.target}`);
    for (const expected of [
      `GET /payment/product/${productId}`,
      `POST /payment/product/${productId}/session`,
      `GET /payment/product/${productId}/confirm/`,
      'POST /webhooks/stripe',
    ])
      assert.ok(
        seen.some((line) => line.startsWith(expected)),
        `opentill received ${expected}: ${seen.join(', ')}`,
      );
    const logged = logLines(server.stdout).map((l) => `${l.req?.method} ${l.req?.url}`);
    for (const route of [
      'POST /payment/product/:productId/session',
      'GET /payment/product/:productId/confirm/:token',
      'POST /webhooks/stripe',
    ])
      assert.ok(logged.includes(route), `the server logged ${route}`);

    const found = [
      ...tables.found,
      ...Object.entries(material).flatMap(([where, content]) => sightings(where, content)),
    ];
    assert.deepEqual(found, [], 'the card number and the CVC are nowhere opentill keeps or hears');
    const sizes = Object.entries(material).map(([where, content]) => `${where}: ${content.length}`);
    console.log(
      `card canary: ${tables.values} table values and ${sizes.length} files and streams searched in ${Date.now() - started} ms (${sizes.join('; ')})`,
    );
  });
});
