import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { hiddenFields, paidForm } from '../../support/checkout-form.ts';
import { freePort, ServerProcess, within } from '../helpers/server-process.ts';
import { startTestApp } from '../helpers/test-app.ts';

/**
 * A full disk under SQLite (issue 31): what cannot be written is answered 503 with Retry-After (the
 * API as `{error, message}`, the checkout as its form again, as the buyer typed it), reads go on, ten
 * thousand failing requests write a few lines of log rather than ten thousand stack traces, and once
 * space is freed the same server writes again, with no restart. The real thing is a small tmpfs the
 * test mounts; where mounting is not allowed, SQLite's max_page_count stands in (the second test runs
 * either way: it fills the database itself, in process).
 */
function mountSmallVolume(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { stdio: 'ignore' });
    return undefined;
  } catch (err) {
    return `mounting a tmpfs is not allowed here (${(err as Error).message.split('\n')[0]}); max_page_count stands in`;
  }
}

/** Writes to the volume until it refuses: ENOSPC. */
function fill(file: string) {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096, 512]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size, 1));
      } catch (err) {
        assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
      }
    }
  } finally {
    closeSync(fd);
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const METRICS_TOKEN = 'disk-full-metrics-token-0123456789';

/** WAL frames not yet copied into the database file, from the WAL index's header (mxFrame at byte 16, nBackfill at 96). */
function walFramesPending(file: string): number {
  const header = readFileSync(`${file}-shm`).subarray(0, 100);
  return header.readUInt32LE(16) - header.readUInt32LE(96);
}

describe('a full disk under SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-full-'));
  const volume = join(dir, 'volume');
  mkdirSync(volume);
  const skip = mountSmallVolume(volume);
  if (skip) after(() => rmSync(dir, { recursive: true, force: true }));

  test(
    'writes answer 503 with Retry-After and the checkout keeps what was typed, 10,000 failures log under 1 MB, and writes resume once space is freed',
    { skip, timeout: 120_000 },
    async (tc) => {
      const server = new ServerProcess(await freePort(), dir, {
        env: {
          SQLITE_FILE: join(volume, 'opentill.db'),
          LOG_LEVEL: 'info',
          RATE_LIMIT_PER_ADDRESS: '1000000',
          RATE_LIMIT_PER_CREDENTIAL: '1000000',
          METRICS_TOKEN,
        },
      });
      // Closed whatever happens: an open file would keep the volume from being unmounted.
      let release = () => {};
      try {
        await within(server.started(), 'the start');
        const authorization = server.stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
        const [bob] = (await (
          await fetch(`${server.url}/sandbox/v1/transactions/bob%40example.com`, { headers: { authorization } })
        ).json()) as {
          id: string;
          productId: string;
        }[];
        const write = (payload: string) =>
          fetch(`${server.url}/sandbox/v1/transaction/${bob!.id}`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify({ payload }),
          });
        const product = bob!.productId;
        const page = await (await fetch(`${server.url}/sandbox/payment/product/${product}?country=DE`)).text();
        const buyer = paidForm(hiddenFields(page), {
          token: 'full-disk-token-0123456789',
          email: 'typed@full.test',
          firstName: 'Typed',
          lastName: 'Buyer',
        });
        const pay = () =>
          fetch(`${server.url}/sandbox/payment/product/${product}`, { method: 'POST', headers: FORM, body: buyer });

        // A reader of our own holds the write-ahead log from before the disk fills: once checkpointed, the
        // log would otherwise start over in the space it has, and the same row's rewrites would find room for
        // as long as the checkpointer kept up (two runs in three on a busy machine: 25,561 written for 4,439
        // refused; and once, on a quiet one, the checkout right after the first refusal was written).
        const reader = new SQLite(join(volume, 'opentill.db'), { readonly: true });
        reader.exec('begin');
        reader.prepare('select count(*) from transactions').get();
        release = () => {
          if (!reader.open) return;
          reader.exec('commit');
          reader.close();
        };
        fill(join(volume, 'filler'));
        // The write-ahead log's file still has room for some writes (the start left it 3 MB long, about 800
        // of these): they succeed until it has to grow.
        let refused = await write('x'.repeat(4000));
        for (let i = 0; i < 5000 && refused.status === 200; i++) refused = await write(`${i} ${'x'.repeat(4000)}`);
        assert.equal(refused.status, 503);
        assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal(((await refused.json()) as { error: string }).error, 'SERVICE_UNAVAILABLE');
        const checkout = await pay();
        assert.equal(checkout.status, 503);
        assert.match(checkout.headers.get('retry-after') ?? '', /^\d+$/);
        const shown = await checkout.text();
        assert.match(shown, /Press Pay again in a moment/);
        assert.match(shown, /value="typed@full\.test"/, 'the form keeps what the buyer typed');
        assert.equal(
          (await fetch(`${server.url}/sandbox/v1/transaction/${bob!.id}`, { headers: { authorization } })).status,
          200,
          'reads go on',
        );

        const [outBefore, errBefore] = [server.stdout.length, server.stderr.length];
        // Until 10,000 are refused. A few may still find room (pages the database freed): those are
        // written, which is right; nothing else is answered.
        const statuses = new Map<number, number>();
        const refusals = () => statuses.get(503) ?? 0;
        let sent = 0;
        try {
          await Promise.all(
            Array.from({ length: 8 }, async () => {
              while (refusals() < 10_000 && sent++ < 30_000) {
                const res = await write(`attempt ${sent}`);
                await res.arrayBuffer();
                statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
              }
            }),
          );
        } finally {
          release();
        }
        assert.ok(refusals() >= 10_000, `10,000 refused: ${JSON.stringify([...statuses])}`);
        assert.deepEqual(
          [...statuses.keys()].filter((status) => status !== 503 && status !== 200),
          [],
          'only 503 or written',
        );
        // What the failures wrote: the log less the one line each write that found room is owed (a busy
        // machine lets the checkpointer free room more often, and those writes are logged as any other).
        const written = server.stdout
          .slice(outBefore)
          .split('\n')
          .filter((line) => !(line.includes('"msg":"request completed"') && line.includes('"statusCode":200')));
        const logged = written.join('\n').length + server.stderr.length - errBefore;
        assert.ok(logged < 1_000_000, `10,000 failing requests wrote ${logged} bytes of log`);
        // Counted, though not logged one by one.
        const metrics = await (
          await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        ).text();
        const counted = Number(/^opentill_errors_total\{code="SERVICE_UNAVAILABLE"\} (\d+)$/m.exec(metrics)?.[1]);
        assert.ok(counted >= 10_000, `opentill_errors_total counts them: ${counted}`);

        rmSync(join(volume, 'filler'));
        assert.equal((await write('after')).status, 200, 'writes again once space is freed, without a restart');
        const paid = await pay();
        assert.equal(paid.status, 200, 'the buyer pressing Pay again on the same form pays');
        assert.match(await paid.text(), /<h1>Thank you<\/h1>/);
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
        // The checkpointing thread lived through the refused checkpoints: once writes pause it copies the WAL into the file again.
        for (let i = 0; walFramesPending(join(volume, 'opentill.db')) > 0; i++) {
          assert.ok(i < 100, 'the WAL is checkpointed again once space is freed');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(server.running);
        tc.diagnostic(
          `10,000 requests failing for want of disk space: ${[...statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}, ${logged} bytes of log`,
        );
      } finally {
        release();
        await server.kill();
        execFileSync('umount', [volume]);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test('a database at its max_page_count answers a write 503 with Retry-After, changes nothing, and takes it once allowed to grow', async () => {
    const t = await startTestApp('sqlite');
    try {
      const v = await t.newVendor();
      const product = await v.product({ type: 'ONETIME' });
      const id = await v.buy(product.id);
      const db = t.services.database.kysely;
      // No free pages left inside the file (a migration that rebuilt a table leaves some): a write must grow it.
      await sql`vacuum`.execute(db);
      const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count);
      await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
      let refused: Awaited<ReturnType<typeof v.api>> | undefined;
      let written: string | null = null;
      for (let i = 0; i < 200 && !refused; i++) {
        const payload = `${i} ${'y'.repeat(4000)}`;
        const res = await v.api(`/v1/transaction/${id}`, { body: { payload } });
        if (res.status === 200) written = payload;
        else refused = res;
      }
      assert.equal(refused?.status, 503, 'the full database refuses a write');
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal(refused.json.error, 'SERVICE_UNAVAILABLE');
      assert.equal((await v.api(`/v1/transaction/${id}`)).json.payload, written, 'the refused write changed nothing');
      await sql.raw(`pragma max_page_count = ${pages * 100}`).execute(db);
      assert.equal((await v.api(`/v1/transaction/${id}`, { body: { payload: 'room again' } })).status, 200);
    } finally {
      await t.close();
    }
  });
});
