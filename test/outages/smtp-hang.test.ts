import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBillingWorker } from '../../src/worker.ts';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestApp, storeKinds, type TestApp } from '../helpers/test-app.ts';

/**
 * An SMTP server that accepts connections and never answers (issue 31), between the worker and a real
 * SMTP server on loopback: a TCP proxy that holds every connection. E-mails go out from a loop of
 * their own, each with a deadline, so a sandbox clock move renews its subscriptions as fast as with
 * no SMTP at all (within 1.5 times that, measured in the same run), and queues their e-mails. What
 * happens once the server answers again (each queued e-mail sent once) is
 * test/emails/hung-smtp-recovery.test.ts: it times nothing, so it does not hold the machine alone.
 */
const SUBSCRIBERS = 40;
const DAYS = 30;

/** A vendor with daily subscriptions in a test app; moves its sandbox clock and returns how long the worker took to bill the days. */
async function renewals(t: TestApp) {
  const v = await t.newVendor();
  const daily = await v.product({
    type: 'SUBSCRIPTION',
    chargeFrequency: 'DAILY',
    prices: [{ currency: 'USD', value: 3 }],
  });
  for (let i = 0; i < SUBSCRIBERS; i++) await v.buy(daily.id, { email: `daily-${i}@smtp.test` });
  const worker = startBillingWorker(t.services, { intervalMs: 500, onError: (err) => assert.fail(err as Error) });
  const started = performance.now();
  await t.services.sandboxClock.advance(v.scope(), { seconds: DAYS * 86_400 });
  for (let i = 0; !(await t.services.sandboxClock.read(v.scope())).billing.caughtUp; i++) {
    assert.ok(i < 1_200, 'the renewals were billed');
    await sleep(25);
  }
  return { ms: performance.now() - started, worker, scope: v.scope() };
}

for (const kind of await storeKinds()) {
  describe(`an SMTP server that hangs (${kind})`, () => {
    test(
      'renewals take no longer than with no SMTP (x1.5), and queue their e-mails',
      { timeout: 120_000 },
      async (tc) => {
        const quiet = await startTestApp(kind);
        const inbox = await startSmtpInbox();
        const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(inbox.url).port) });
        const hung = await startTestApp(kind, {
          env: {
            SMTP_URL: `smtp://127.0.0.1:${proxy.port}`,
            SMTP_FROM: 'receipts@smtp.test',
            SMTP_SANDBOX_TO: 'customers',
          },
          emails: { options: { sendDeadlineMs: 1_000, firstRetryMs: 200 } },
        });
        const workers: { stop(): Promise<void> }[] = [];
        try {
          proxy.hold();
          const withoutSmtp = await renewals(quiet);
          workers.push(withoutSmtp.worker);
          const withHungSmtp = await renewals(hung);
          workers.push(withHungSmtp.worker);
          const ratio = withHungSmtp.ms / withoutSmtp.ms;
          tc.diagnostic(
            `${SUBSCRIBERS * DAYS} renewals: ${Math.round(withoutSmtp.ms)} ms with no SMTP, ${Math.round(withHungSmtp.ms)} ms with a hung SMTP server (x${ratio.toFixed(2)})`,
          );
          assert.ok(
            ratio <= 1.5,
            `renewals with a hung SMTP server took x${ratio.toFixed(2)} the time they take with no SMTP`,
          );
          const queued = await hung.services.database.kysely.selectFrom('customer_emails').select('id').execute();
          assert.equal(
            queued.length,
            SUBSCRIBERS * (DAYS + 1),
            'a receipt and a renewal notice per day for each subscriber, queued',
          );
          assert.ok(
            proxy.connections > 0 && inbox.messages.length === 0,
            'the worker tried the hung server, and nothing went through it',
          );
        } finally {
          for (const w of workers) await w.stop();
          await hung.close();
          await quiet.close();
          await proxy.close();
          await inbox.close();
        }
      },
    );
  });
}
