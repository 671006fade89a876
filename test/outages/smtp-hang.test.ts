import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dailyRenewals, startHungSmtpApp } from '../helpers/hung-smtp.ts';
import { startTestApp, storeKinds } from '../helpers/test-app.ts';

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

for (const kind of await storeKinds()) {
  describe(`an SMTP server that hangs (${kind})`, () => {
    test(
      'renewals take no longer than with no SMTP (x1.5), and queue their e-mails',
      { timeout: 120_000 },
      async (tc) => {
        const quiet = await startTestApp(kind);
        const hung = await startHungSmtpApp(kind);
        const workers: { stop(): Promise<void> }[] = [];
        try {
          hung.proxy.hold();
          const withoutSmtp = await dailyRenewals(quiet, { subscribers: SUBSCRIBERS, days: DAYS });
          workers.push(withoutSmtp.worker);
          const withHungSmtp = await dailyRenewals(hung.app, { subscribers: SUBSCRIBERS, days: DAYS });
          workers.push(withHungSmtp.worker);
          const ratio = withHungSmtp.ms / withoutSmtp.ms;
          tc.diagnostic(
            `${SUBSCRIBERS * DAYS} renewals: ${Math.round(withoutSmtp.ms)} ms with no SMTP, ${Math.round(withHungSmtp.ms)} ms with a hung SMTP server (x${ratio.toFixed(2)})`,
          );
          assert.ok(
            ratio <= 1.5,
            `renewals with a hung SMTP server took x${ratio.toFixed(2)} the time they take with no SMTP`,
          );
          const queued = await hung.app.services.database.kysely.selectFrom('customer_emails').select('id').execute();
          assert.equal(
            queued.length,
            SUBSCRIBERS * (DAYS + 1),
            'a receipt and a renewal notice per day for each subscriber, queued',
          );
          assert.ok(
            hung.proxy.connections > 0 && hung.inbox.messages.length === 0,
            'the worker tried the hung server, and nothing went through it',
          );
        } finally {
          for (const w of workers) await w.stop();
          await hung.close();
          await quiet.close();
        }
      },
    );
  });
}
