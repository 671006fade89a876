import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Wiring } from '../../src/services.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import type { EmailChildJob } from '../helpers/email-child.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { runScript } from '../helpers/child-script.ts';

/**
 * The e-mail worker SIGKILLed: before a message is handed to SMTP (just after its claim, or between
 * two messages) nothing goes twice once a restarted worker finishes; killed after the server accepted
 * a message and before the outbox recorded it, that one message goes twice, with the same Message-ID.
 * Then random kills while it sends: every message arrives, and a message arrives twice only as often
 * as a kill landed in that window, always with one Message-ID.
 */
const CHILD = fileURLToPath(new URL('../helpers/email-child.ts', import.meta.url));
const CUSTOMERS = 7;
const LEASE_MS = 1500;

const runChild = (job: EmailChildJob) => runScript(CHILD, job);

/** Queues one receipt for each of `CUSTOMERS` buyers, in a fresh database; the test's own process never sends. */
async function queued(kind: Awaited<ReturnType<typeof storeKinds>>[number], inbox: SmtpInbox) {
  const store = await freshDatabase(kind);
  const config = loadConfig({
    OPENTILL_SECRET: 'email-child-secret-0123456789-0123456789',
    OPENTILL_DATA_DIR: '/tmp/opentill-email-child',
    LOG_LEVEL: 'silent',
    SMTP_URL: inbox.url,
    SMTP_FROM: 'receipts@opentill.test',
    SMTP_SANDBOX_TO: 'customers',
  });
  const services: Wiring = createServices(config, { database: store.database });
  const vendor = await services.catalog.createVendor({ name: 'Killed Mailer Ltd', email: 'owner@killed.test' });
  const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
  const product = await services.catalog.createProduct(scope, {
    name: 'Thing',
    type: 'ONETIME',
    prices: [{ currency: 'USD', value: 9 }],
  });
  const card = { number: '4242424242424242', expMonth: 12, expYear: 2035 };
  for (let i = 0; i < CUSTOMERS; i++)
    await services.purchases.purchase(scope, {
      productId: product.id,
      email: `buyer${i}@example.com`,
      country: 'US',
      card,
    });
  const job = (extra: Partial<EmailChildJob>): EmailChildJob => ({
    url: store.url,
    file: store.file,
    smtpUrl: inbox.url,
    leaseMs: LEASE_MS,
    ...extra,
  });
  const counts = () => Array.from({ length: CUSTOMERS }, (_, i) => inbox.to(`buyer${i}@example.com`));
  return {
    job,
    counts,
    async statuses() {
      return (await services.emails.list(scope, 100)).map((e) => e.status);
    },
    async close() {
      await services.close().catch(() => {});
      await store.drop();
    },
  };
}

/**
 * Runs the worker after a killed one (its lease has run out by then) until the outbox has sent all: a
 * worker past half its lease leaves the rest of its batch to a later run, and on a busy machine one
 * message can take that long, so one run may not be the last. Nothing here may depend on the machine's speed.
 */
async function finish(job: EmailChildJob, statuses: () => Promise<string[]>) {
  for (let run = 0; run < 10; run++) {
    await sleep(LEASE_MS + 100);
    const { code, stderr } = await runChild(job).exited;
    assert.equal(code, 0, stderr);
    if ((await statuses()).every((status) => status === 'SENT')) return;
  }
}

// The two stores at once: each half mostly waits on its children and their leases, and its own
// children are all that run against its own database.
const kinds = await storeKinds();
describe('the e-mail worker killed', { concurrency: true }, () => {
  for (const kind of kinds) {
    describe(`the e-mail worker killed (${kind})`, () => {
      for (const killBefore of [0, 4]) {
        test(
          `killed before handing message ${killBefore + 1} to SMTP, nothing is sent twice`,
          { timeout: 60_000 },
          async () => {
            const inbox = await startSmtpInbox();
            const world = await queued(kind, inbox);
            try {
              const killed = await runChild(world.job({ killBefore })).exited;
              assert.equal(killed.signal, 'SIGKILL');
              assert.equal(inbox.messages.length, killBefore);
              await finish(world.job({}), world.statuses);
              assert.deepEqual(
                world.counts().map((mails) => mails.length),
                Array(CUSTOMERS).fill(1),
              );
              assert.deepEqual(await world.statuses(), Array(CUSTOMERS).fill('SENT'));
            } finally {
              await world.close();
              await inbox.close();
            }
          },
        );
      }

      test(
        'killed after the server accepted a message and before the outbox heard, that message goes twice with one Message-ID',
        { timeout: 60_000 },
        async () => {
          const inbox = await startSmtpInbox();
          const world = await queued(kind, inbox);
          try {
            assert.equal((await runChild(world.job({ killAfterAccept: 2 })).exited).signal, 'SIGKILL');
            await finish(world.job({}), world.statuses);
            const counts = world.counts();
            const twice = counts.filter((mails) => mails.length === 2);
            assert.equal(twice.length, 1, 'exactly the message in the window');
            assert.equal(counts.filter((mails) => mails.length === 1).length, CUSTOMERS - 1);
            assert.equal(twice[0]![0]!.messageId, twice[0]![1]!.messageId);
            assert.equal(twice[0]![0]!.text, twice[0]![1]!.text, 'the same message, links included');
          } finally {
            await world.close();
            await inbox.close();
          }
        },
      );

      test(
        'killed at random moments while sending, every message arrives and a duplicate is only ever a recognisable one',
        { timeout: 120_000 },
        async (t) => {
          const inbox = await startSmtpInbox();
          const world = await queued(kind, inbox);
          try {
            let kills = 0;
            for (let round = 0; round < 3; round++) {
              const run = runChild(world.job({ pauseMs: 40 }));
              // Once it is sending, a random moment later: before, during or after an SMTP exchange or an outbox write.
              while (run.lines('sent') === 0 && run.child.exitCode === null) await sleep(5);
              await sleep(Math.random() * 60);
              if (run.child.kill('SIGKILL')) kills++;
              await run.exited;
              await sleep(LEASE_MS + 100);
            }
            await finish(world.job({}), world.statuses);
            const counts = world.counts();
            assert.ok(
              counts.every((mails) => mails.length >= 1),
              'every customer got the receipt',
            );
            const extra = counts.reduce((sum, mails) => sum + mails.length - 1, 0);
            assert.ok(extra <= kills, `${extra} duplicates from ${kills} kills`);
            t.diagnostic(`${kills} kills, ${extra} duplicates`);
            for (const mails of counts) assert.equal(new Set(mails.map((m) => m.messageId)).size, 1);
            assert.deepEqual(await world.statuses(), Array(CUSTOMERS).fill('SENT'));
          } finally {
            await world.close();
            await inbox.close();
          }
        },
      );
    });
  }
});
