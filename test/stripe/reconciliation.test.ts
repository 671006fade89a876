import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ReconciliationReport } from '../../src/domain/books/index.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { cliWith, failedWith, parseJson, succeeded } from '../helpers/cli.ts';
import { startStripeWorld, type CheckoutRun, type StripeWorld } from '../helpers/stripe-world.ts';

/**
 * `opentill reconcile stripe` and services.reconciliation (docs/decisions.md §25), on both stores, through
 * the Stripe stand-in: Stripe's balance transactions and payouts of a period matched with the ledger by
 * Stripe's ids. The gateway here lists two items a page, so every period is read over several pages; the
 * CLI reads the same database and stand-in with Stripe's page of 100.
 */
for (const kind of await storeKinds()) {
  describe(`reconciliation with Stripe (${kind})`, () => {
    const clock = fixedClock(new Date('2031-03-02T12:00:00Z'));
    let w: StripeWorld;
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    let dataDir: string;
    let cli: ReturnType<typeof cliWith>;
    before(async () => {
      db = await freshDatabase(kind);
      w = await startStripeWorld(kind, { clock, now: () => clock.now(), listPageSize: 2, database: db.database });
      dataDir = mkdtempSync(join(tmpdir(), 'opentill-reconcile-'));
      cli = cliWith({
        OPENTILL_SECRET: 'reconcile-cli-secret-0123456789-0123456789',
        OPENTILL_DATA_DIR: dataDir,
        ...(db.url ? { DATABASE_URL: db.url } : { SQLITE_FILE: db.file! }),
        STRIPE_SECRET_KEY: w.standin.secretKey,
        STRIPE_PUBLISHABLE_KEY: w.standin.publishableKey,
        STRIPE_API_URL: w.standin.url,
      });
    });
    after(async () => {
      await w?.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const at = (iso: string) => clock.set(new Date(iso));
    const product = (prices: { currency: string; value: number }[]) =>
      w.vendor.product({ type: 'ONETIME', prices }, 'production');
    const buy = async (
      usd: number,
      customer: { country?: string; extra?: { currency: string; value: number } } = {},
    ) => {
      const p = await product([{ currency: 'USD', value: usd }, ...(customer.extra ? [customer.extra] : [])]);
      const run = await w.checkout(p.id, { email: 'books@example.com', country: customer.country });
      assert.equal(run.status, 200, run.html);
      await w.settleEvents();
      return run;
    };
    const paymentIntentOf = (run: CheckoutRun) => run.session!.clientSecret.split('_secret_')[0]!;
    const entriesOf = (run: CheckoutRun) => w.app.services.store.entries.listForTransaction(run.transactionId!);
    const reconcile = (from: string, to = from): Promise<ReconciliationReport> =>
      w.app.services.reconciliation.reconcile({ provider: 'STRIPE', environment: 'production', from, to });
    const listRequests = () =>
      w.standin.requests.filter((r) => r.method === 'GET' && r.path === '/v1/balance_transactions');

    test('a period with payments (one in yen), a refund, a dispute and payouts matches item for item; exit 0', async () => {
      at('2031-03-03T09:00:00Z');
      const forty = await buy(40);
      at('2031-03-03T09:05:00Z');
      const disputed = await buy(25);
      at('2031-03-03T09:10:00Z');
      const yen = await buy(20, { country: 'JP', extra: { currency: 'JPY', value: 1500 } });
      const [yenPayment] = await entriesOf(yen);
      assert.equal(yenPayment!.currency, 'JPY');
      at('2031-03-03T10:00:00Z');
      const refund = await w.vendor.api(`/v1/refund-transaction/${forty.transactionId}`, {
        method: 'POST',
        environment: 'production',
        body: { amount: 10 },
      });
      assert.equal(refund.status, 200, refund.text);
      at('2031-03-03T10:05:00Z');
      await w.standin.openDispute(paymentIntentOf(disputed));
      clock.advance(60_000);
      await w.settleEvents();
      at('2031-03-03T12:00:00Z');
      const payouts = await w.standin.payOut();
      assert.deepEqual(payouts.map((p) => p.currency).sort(), ['jpy', 'usd']);

      const requestsBefore = listRequests().length;
      const report = await reconcile('2031-03-03');
      assert.equal(report.differences, 0, JSON.stringify(report, null, 2));
      assert.deepEqual(
        [report.missingInLedger, report.missingAtProcessor, report.amountsDiffer, report.otherItems],
        [[], [], [], []],
      );
      assert.equal(report.matched, 5, 'three payments, a refund and a chargeback');
      assert.deepEqual(report.unbookedFees, [{ currency: 'USD', feeMinor: 1500, items: 1 }], "the dispute's fee");
      assert.deepEqual(
        report.payouts.map((p) => [p.currency, p.amountMinor, p.paidOut, p.differenceMinor]).sort(),
        payouts
          .map((p) => [
            p.currency.toUpperCase(),
            p.amount,
            { netMinor: p.amount, count: p.currency === 'usd' ? 4 : 1 },
            0,
          ])
          .sort(),
      );
      const pages = listRequests().slice(requestsBefore);
      assert.ok(
        pages.filter((r) => r.query.includes('starting_after')).length >= 2,
        `read page by page (${pages.length} requests)`,
      );
      const dayBefore = await reconcile('2031-03-02');
      assert.deepEqual([dayBefore.matched, dayBefore.differences], [0, 0]);

      const text = await cli.run('reconcile', 'stripe', '--from', '2031-03-03', '--to', '2031-03-03');
      succeeded(text);
      assert.match(text.stdout, /^Matched: 5\. Everything matches\.$/m);
      const yenPayout = payouts.find((p) => p.currency === 'jpy')!;
      assert.match(
        text.stdout,
        new RegExp(`^${yenPayout.id} .* ${yenPayout.amount} JPY +1 +${yenPayout.amount} JPY +0 JPY$`, 'm'),
      );
      assert.match(text.stdout, /dispute fees, which the ledger keeps no entry of: 15\.00 USD \(1 item\)/);
      const json = await cli.json('reconcile', 'stripe', '--from', '2031-03-03', '--to', '2031-03-03');
      assert.deepEqual(json, JSON.parse(JSON.stringify(report)));
    });

    test('a tampered ledger (one entry deleted, one amount changed) reports exactly those two; exit 1', async () => {
      at('2031-03-05T08:00:00Z');
      const kept = await buy(40);
      at('2031-03-05T08:10:00Z');
      const deleted = await buy(30);
      at('2031-03-05T08:20:00Z');
      const changed = await buy(20);
      assert.equal((await reconcile('2031-03-05')).differences, 0);
      const [gone] = await entriesOf(deleted);
      const [edited] = await entriesOf(changed);
      const sql = w.app.services.database.kysely;
      await sql.deleteFrom('ledger_entries').where('id', '=', gone!.id).execute();
      await sql.updateTable('ledger_entries').set({ amount_total_minor: 2001 }).where('id', '=', edited!.id).execute();

      const report = await reconcile('2031-03-05');
      assert.deepEqual(
        report.missingInLedger.map((i) => [i.kind, i.reference, i.amountMinor, i.currency]),
        [['payment', paymentIntentOf(deleted), 3000, 'USD']],
      );
      assert.deepEqual(report.amountsDiffer, [
        {
          reference: paymentIntentOf(changed),
          kind: 'payment',
          field: 'amount',
          processorId: report.amountsDiffer[0]!.processorId,
          entryId: edited!.id,
          processor: { amountMinor: 2000, currency: 'USD' },
          ledger: { amountMinor: 2001, currency: 'USD' },
        },
      ]);
      assert.deepEqual(report.missingAtProcessor, []);
      assert.equal(report.matched, 1, paymentIntentOf(kept));
      assert.equal(report.differences, 2);

      const text = await cli.run('reconcile', 'stripe', '--from', '2031-03-05', '--to', '2031-03-05');
      assert.equal(text.code, 1, text.stderr);
      assert.match(text.stdout, /^In Stripe, not in the ledger \(1\):$/m);
      assert.match(
        text.stdout,
        new RegExp(`^payment +${paymentIntentOf(deleted)} +txn_\\w+ +2031-03-05T08:10:00Z +30\\.00 USD$`, 'm'),
      );
      assert.match(
        text.stdout,
        new RegExp(`^payment +${paymentIntentOf(changed)} +amount +20\\.00 USD +20\\.01 USD +${edited!.id}$`, 'm'),
      );
      assert.doesNotMatch(text.stdout, /In the ledger, not in Stripe/);
      assert.match(text.stdout, /^Matched: 1\. 2 differences\.$/m);
      const json = await cli.run('reconcile', 'stripe', '--from', '2031-03-05', '--to', '2031-03-05', '--json');
      assert.equal(json.code, 1);
      assert.equal(parseJson(json).differences, 2);
    });

    test('an entry the ledger has and Stripe lacks is reported, and nothing else', async () => {
      at('2031-03-07T08:00:00Z');
      const run = await buy(40);
      const [payment] = await entriesOf(run);
      const forged = {
        ...payment!,
        id: 'entry_forged_0001',
        hashId: 'hash_forged_0001',
        externalId: 'pi_not_at_stripe',
        createdAt: '2031-03-07T15:00:00.000Z',
        vendorId: w.vendor.vendor.id,
        environment: 'production' as const,
        description: null,
      };
      await w.app.services.store.entries.insert(forged);
      const report = await reconcile('2031-03-07');
      assert.deepEqual(
        report.missingAtProcessor.map((e) => [e.entryId, e.reference, e.amountMinor, e.transactionId]),
        [['entry_forged_0001', 'pi_not_at_stripe', 4000, run.transactionId]],
      );
      assert.deepEqual([report.missingInLedger, report.amountsDiffer, report.matched], [[], [], 1]);
      const text = await cli.run('reconcile', 'stripe', '--from', '2031-03-07', '--to', '2031-03-07');
      assert.equal(text.code, 1);
      assert.match(text.stdout, /^ONETIME_PAYMENT +pi_not_at_stripe +entry_forged_0001 /m);
    });

    test("the period is cut by Stripe's time: an item at midnight is the next day's, a refund booked after midnight is no difference on either day", async () => {
      at('2031-03-10T00:00:00.000Z');
      const first = await buy(40);
      at('2031-03-10T23:59:00.000Z');
      await buy(30);
      at('2031-03-10T23:59:59.000Z');
      await w.standin.refundFromDashboard(paymentIntentOf(first), 1000);
      at('2031-03-11T00:00:00.000Z');
      await buy(20); // its events are settled with the refund's: the refund is booked on the 11th
      const refundEntry = (await entriesOf(first)).find((e) => e.type === 'ONETIME_PAYMENT_REFUND')!;
      assert.equal(refundEntry.createdAt, '2031-03-11T00:00:00.000Z');

      const tenth = await reconcile('2031-03-10');
      assert.deepEqual([tenth.matched, tenth.differences], [3, 0], JSON.stringify(tenth, null, 2));
      const eleventh = await reconcile('2031-03-11');
      assert.deepEqual([eleventh.matched, eleventh.differences], [1, 0], JSON.stringify(eleventh, null, 2));
      assert.deepEqual(
        [(await reconcile('2031-03-10', '2031-03-11')).matched, eleventh.period],
        [
          4,
          {
            from: '2031-03-11',
            to: '2031-03-11',
            startsAt: '2031-03-11T00:00:00.000Z',
            endsAt: '2031-03-12T00:00:00.000Z',
          },
        ],
      );
    });

    test('a refund dated before midnight by opentill and made after it by Stripe (asked again) is no difference on either day', async () => {
      at('2031-03-15T09:00:00Z');
      const run = await buy(40);
      const refund = (headers: Record<string, string>) =>
        w.vendor.api(`/v1/refund-transaction/${run.transactionId}`, {
          method: 'POST',
          environment: 'production',
          body: { amount: 10 },
          headers,
        });
      at('2031-03-15T23:59:59.500Z');
      w.standin.faults.add({ method: 'POST', path: /^\/v1\/refunds$/, mode: 'error-500', times: 1 });
      assert.equal((await refund({ 'idempotency-key': 'late-refund' })).status, 202, 'Stripe did not answer');
      at('2031-03-16T00:00:30Z');
      const again = await refund({ 'idempotency-key': 'late-refund' });
      assert.equal(again.status, 200, again.text);
      const booked = (await entriesOf(run)).find((e) => e.type === 'ONETIME_PAYMENT_REFUND')!;
      assert.equal(booked.createdAt, '2031-03-15T23:59:59.500Z', 'dated when it was asked for');
      const made = await w.stripe.refunds.retrieve(booked.externalId!);
      assert.equal(new Date(made.created * 1000).toISOString(), '2031-03-16T00:00:30.000Z');

      const fifteenth = await reconcile('2031-03-15');
      assert.deepEqual([fifteenth.matched, fifteenth.differences], [1, 0], JSON.stringify(fifteenth, null, 2));
      const sixteenth = await reconcile('2031-03-16');
      assert.deepEqual([sixteenth.matched, sixteenth.differences], [1, 0], JSON.stringify(sixteenth, null, 2));
    });

    test('a refund that failed before it was booked is in neither book: its refund and its failure net to nothing', async () => {
      at('2031-03-13T09:00:00Z');
      const run = await buy(40);
      const refund = await w.standin.refundFromDashboard(paymentIntentOf(run), 1500);
      await w.standin.failRefund(refund.id);
      clock.advance(60_000);
      await w.settleEvents();
      assert.equal((await entriesOf(run)).length, 1, 'the ledger booked no refund');
      const report = await reconcile('2031-03-13');
      assert.deepEqual([report.matched, report.differences], [3, 0], JSON.stringify(report, null, 2));
    });

    test('bad input and a processor that is not there are clear errors, never a stack trace', async () => {
      failedWith(
        await cli.run('reconcile', 'stripe', '--from', '2031-02-30', '--to', '2031-03-01'),
        /"2031-02-30" is not a date/,
      );
      failedWith(
        await cli.run('reconcile', 'stripe', '--from', '2031-03-02', '--to', '2031-03-01'),
        /ends \(2031-03-01\) before it starts/,
      );
      failedWith(
        await cli.run('reconcile', 'stripe', '--from', '2031-03-01', '--to', '2031-03-01', '--env', 'sandbox'),
        /Stripe is not configured for sandbox: set STRIPE_SANDBOX_SECRET_KEY/,
      );
      w.standin.faults.add({ method: 'GET', path: /^\/v1\/balance_transactions$/, mode: 'error-500', times: 1 });
      failedWith(
        await cli.run('reconcile', 'stripe', '--from', '2031-03-01', '--to', '2031-03-01'),
        /The processor's records \(STRIPE\) could not be read: /,
      );
      await assert.rejects(
        w.app.services.reconciliation.reconcile({
          provider: 'STRIPE',
          environment: 'sandbox',
          from: '2031-03-01',
          to: '2031-03-01',
        }),
        { code: 'INVALID_STATE', message: /sandbox takes no payments through STRIPE/ },
      );
    });
  });
}
