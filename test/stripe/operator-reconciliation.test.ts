import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { ARTIFACTS, SCREEN_SIZES, screenshot, seriousViolations } from '../../support/chromium.ts';
import { formBrowser } from '../helpers/form-browser.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

/**
 * The console's Reconciliation page (issue 34 items 1 and 4, docs/decisions.md §25, §26) over the Stripe
 * stand-in, on both stores: the days' books agree; after the ledger is tampered with, the page lists
 * exactly the tampering; bad days, and an environment without Stripe, are said on the page.
 */
for (const kind of await storeKinds()) {
  describe(`the console's reconciliation (${kind})`, () => {
    const clock = fixedClock(new Date('2031-04-02T12:00:00Z'));
    let w: StripeWorld;
    before(async () => {
      w = await startStripeWorld(kind, { clock, now: () => clock.now() });
    });
    after(() => w?.close());

    const buy = async (usd: number) => {
      const p = await w.vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: usd }] }, 'production');
      const run = await w.checkout(p.id, { email: 'books@example.com' });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      return run;
    };

    test('agreeing books, then exactly the tampering; bad days and the sandbox are said on the page', async () => {
      clock.set(new Date('2031-04-03T09:00:00Z'));
      await buy(40);
      clock.set(new Date('2031-04-03T09:10:00Z'));
      const tampered = await buy(25);
      clock.set(new Date('2031-04-03T12:00:00Z'));
      await w.standin.payOut();

      const { password } = await w.app.services.operators.create('ops@opentill.test');
      const b = formBrowser(w.app.url);
      await b.get('/operator/signin');
      assert.equal((await b.post('/operator/signin', { email: 'ops@opentill.test', password })).status, 303);

      const days = '/operator/reconciliation?from=2031-04-03&to=2031-04-03';
      const agree = await b.get(days);
      assert.equal(agree.status, 200);
      assert.match(agree.html, /data-testid="agree"[^>]*>The books agree: 2 of Stripe's items match the ledger\./);
      assert.match(agree.html, /data-testid="payout"[^]*?agrees/);

      const [entry] = await w.app.services.store.entries.listForTransaction(tampered.transactionId!);
      await w.app.services.database.kysely
        .updateTable('ledger_entries')
        .set({ amount_total_minor: 2499 })
        .where('id', '=', entry!.id)
        .execute();
      const differ = await b.get(days);
      assert.match(differ.html, /data-testid="differ"[^>]*>1 difference; 1 item matches\./);
      assert.equal(differ.html.match(/data-testid="amount-differs"/g)?.length, 1);
      assert.match(differ.html, /data-testid="amount-differs"[^]*?25\.00 USD[^]*?24\.99 USD/);
      assert.doesNotMatch(differ.html, /missing-in-ledger|missing-at-processor/);

      if (kind === 'sqlite') await lookAt(w.app.url, password, days);

      const backwards = await b.get('/operator/reconciliation?from=2031-04-03&to=2031-04-01');
      assert.equal(backwards.status, 400);
      assert.match(backwards.html, /ends \(2031-04-01\) before it starts/);
      const sandbox = await b.get(`${days}&env=sandbox`);
      assert.equal(sandbox.status, 409);
      assert.match(sandbox.html, /sandbox takes no payments through STRIPE/);
    });
  });
}

/** The page with a difference on it, axe-clean, shot at desktop and phone size (test-artifacts/operator-reconciliation-*.png). */
async function lookAt(url: string, password: string, days: string) {
  const browser = await sharedChromium();
  try {
    for (const [size, viewport] of SCREEN_SIZES) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${url}/operator/signin`);
      await page.fill('#email', 'ops@opentill.test');
      await page.fill('#password', password);
      await page.click('button[type="submit"]');
      await page.goto(`${url}${days}`);
      assert.equal(await page.locator('[data-testid="amount-differs"]').count(), 1);
      assert.deepEqual(await seriousViolations(page), [], `reconciliation (${size})`);
      await screenshot(page, `${ARTIFACTS}operator-reconciliation-${size}.png`, { fullPage: true });
      await context.close();
    }
  } finally {
    await browser.close();
  }
}
