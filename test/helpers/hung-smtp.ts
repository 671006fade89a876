import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBillingWorker } from '../../src/worker.ts';
import { startSmtpInbox } from './smtp-inbox.ts';
import { startTcpProxy } from './tcp-proxy.ts';
import type { StoreKind } from '../../support/databases.ts';
import { startTestApp, type TestApp } from './test-app.ts';

/**
 * A test app whose SMTP server (a real one on loopback) sits behind a TCP proxy: `proxy.hold()` makes the
 * server accept connections and never answer (issue 31), `proxy.restore()` lets it answer again. Sends
 * are given up after a second, and tried again from 200 ms on.
 */
export async function startHungSmtpApp(kind: StoreKind) {
  const inbox = await startSmtpInbox();
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(inbox.url).port) });
  const app = await startTestApp(kind, {
    env: { SMTP_URL: `smtp://127.0.0.1:${proxy.port}`, SMTP_FROM: 'receipts@smtp.test', SMTP_SANDBOX_TO: 'customers' },
    emails: { options: { sendDeadlineMs: 1_000, firstRetryMs: 200 } },
  });
  return {
    app,
    inbox,
    proxy,
    async close() {
      await app.close();
      await proxy.close();
      await inbox.close();
    },
  };
}

/**
 * A vendor with `subscribers` daily subscriptions in `t`, and a billing worker (e-mails included) started
 * after they are bought; moves the vendor's sandbox clock `days` ahead and returns how long the worker
 * took to bill them, and the worker to stop.
 */
export async function dailyRenewals(t: TestApp, { subscribers, days }: { subscribers: number; days: number }) {
  const v = await t.newVendor();
  const daily = await v.product({
    type: 'SUBSCRIPTION',
    chargeFrequency: 'DAILY',
    prices: [{ currency: 'USD', value: 3 }],
  });
  for (let i = 0; i < subscribers; i++) await v.buy(daily.id, { email: `daily-${i}@smtp.test` });
  const worker = startBillingWorker(t.services, { intervalMs: 500, onError: (err) => assert.fail(err as Error) });
  const started = performance.now();
  await t.services.sandboxClock.advance(v.scope(), { seconds: days * 86_400 });
  for (let i = 0; !(await t.services.sandboxClock.read(v.scope())).billing.caughtUp; i++) {
    assert.ok(i < 1_200, 'the renewals were billed');
    await sleep(25);
  }
  return { ms: performance.now() - started, worker };
}
