import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBillingWorker } from '../../src/worker.ts';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestApp, storeKinds } from '../helpers/test-app.ts';

/**
 * An SMTP server that hung while renewals and purchases queued their e-mails (a TCP proxy holding every
 * connection to a real SMTP server on loopback, as in test/outages/smtp-hang.test.ts, which times the
 * renewals): once it answers again, every queued e-mail is sent, each once, and none went out meanwhile.
 */
const SUBSCRIBERS = 8;
const DAYS = 10;

for (const kind of await storeKinds()) {
  describe(`an SMTP server that answers again after hanging (${kind})`, () => {
    test('every e-mail queued meanwhile is sent, each once', { timeout: 120_000 }, async () => {
      const inbox = await startSmtpInbox();
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(inbox.url).port) });
      const t = await startTestApp(kind, {
        env: {
          SMTP_URL: `smtp://127.0.0.1:${proxy.port}`,
          SMTP_FROM: 'receipts@smtp.test',
          SMTP_SANDBOX_TO: 'customers',
        },
        emails: { options: { sendDeadlineMs: 1_000, firstRetryMs: 200 } },
      });
      const worker = startBillingWorker(t.services, { intervalMs: 200, onError: (err) => assert.fail(err as Error) });
      try {
        proxy.hold();
        const v = await t.newVendor();
        const daily = await v.product({
          type: 'SUBSCRIPTION',
          chargeFrequency: 'DAILY',
          prices: [{ currency: 'USD', value: 3 }],
        });
        for (let i = 0; i < SUBSCRIBERS; i++) await v.buy(daily.id, { email: `daily-${i}@smtp.test` });
        await t.services.sandboxClock.advance(v.scope(), { seconds: DAYS * 86_400 });
        for (let i = 0; !(await t.services.sandboxClock.read(v.scope())).billing.caughtUp; i++) {
          assert.ok(i < 1_200, 'the renewals were billed');
          await sleep(25);
        }
        const emails = t.services.database.kysely.selectFrom('customer_emails');
        const queued = await emails.select('id').execute();
        assert.equal(queued.length, SUBSCRIBERS * (DAYS + 1), 'a receipt and a notice per renewal, queued');
        // The worker has tried the hung server (a send waits out its deadline) and nothing went through it.
        for (let i = 0; proxy.connections === 0; i++) {
          assert.ok(i < 1_200, 'the worker tried the hung server');
          await sleep(25);
        }
        assert.equal(inbox.messages.length, 0);

        proxy.restore().catch(() => undefined);
        for (let i = 0; ; i++) {
          const unsent = await emails.select('id').where('status', '!=', 'SENT').execute();
          if (unsent.length === 0) break;
          assert.ok(i < 2_400, `every e-mail sent once the server answers (${unsent.length} left)`);
          await sleep(50);
        }
        const ids = inbox.messages.map((m) => m.messageId);
        assert.equal(ids.length, queued.length, 'as many messages arrived as were queued');
        assert.equal(new Set(ids).size, ids.length, 'none arrived twice');
      } finally {
        await worker.stop();
        await t.close();
        await proxy.close();
        await inbox.close();
      }
    });
  });
}
