import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { dailyRenewals, startHungSmtpApp } from '../helpers/hung-smtp.ts';
import { storeKinds } from '../helpers/test-app.ts';

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
      const hung = await startHungSmtpApp(kind);
      const { app, inbox, proxy } = hung;
      let worker: { stop(): Promise<void> } | undefined;
      try {
        proxy.hold();
        ({ worker } = await dailyRenewals(app, { subscribers: SUBSCRIBERS, days: DAYS }));
        const emails = app.services.database.kysely.selectFrom('customer_emails');
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
        await worker?.stop();
        await hung.close();
      }
    });
  });
}
