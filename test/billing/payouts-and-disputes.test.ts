import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ProcessorEvent } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { processorWebhooks, scriptedProcessor } from '../helpers/scripted-processor.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Disputes that land after a payout (issue 34, docs/decisions.md §22): the chargeback takes from the
 * next statement at once, a balance below zero is carried, a dispute won is a payment again (held, then
 * paid); the platform's fee goes back and forth with the money. Throughout, what the statements paid
 * plus the balance is the vendor's income in the ledger.
 */
const DAY = 24 * 60 * 60 * 1000;

for (const kind of await storeKinds()) {
  describe(`payout statements and disputes (${kind})`, () => {
    const clock = fixedClock(new Date('2031-03-01T12:00:00.000Z'));
    const processor = scriptedProcessor(() => clock.now());
    let t: TestApp;
    let v: TestVendor;
    useTestApp(
      kind,
      { clock, gateways: { sandbox: processor.gateway }, env: { PLATFORM_FEE: '10%' } },
      (app, vendor) => {
        t = app;
        v = vendor;
        processor.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
      },
    );
    const webhooks = processorWebhooks(
      () => t.url,
      () => clock.now(),
      `evt_payout_${kind}`,
    );
    const day = () => new Date(clock.now().getTime()).toISOString().slice(0, 10);
    const later = (days: number) => clock.set(new Date(clock.now().getTime() + days * DAY));

    test('a chargeback after a payout is carried; the dispute won is paid again; statements and balance add up to the income', async () => {
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 100 }] });
      const id = await v.buy(product.id, { email: 'disputed@example.com', country: 'US', region: 'OR' });
      const attempt = (await t.services.store.chargeAttempts.latestFor(id, 'PURCHASE'))!;
      const [payment] = await t.services.store.entries.listForTransaction(id);
      const dispute = (outcome: 'open' | 'won'): ProcessorEvent => ({
        kind: 'dispute',
        paymentReference: payment!.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_payout_${kind}`,
        amountMinor: 10_000,
        currency: 'USD',
        outcome,
      });
      const paidOut: number[] = [];
      const statement = async () => {
        const made = await t.services.payouts.create(v.vendor.id, 'sandbox', day());
        paidOut.push(...made.map((s) => s.payableMinor));
        return made[0];
      };
      const holds = async () => {
        const income = (await t.services.store.entries.listForTransaction(id)).reduce((a, e) => a + e.incomeMinor, 0);
        const [balance] = await t.services.payouts.balances(v.vendor.id, 'sandbox');
        assert.equal(paidOut.reduce((a, b) => a + b, 0) + (balance?.balanceMinor ?? 0), income);
        return balance;
      };

      later(15);
      assert.equal((await statement())?.payableMinor, 9000, '100.00 less the 10% fee');
      await holds();

      later(1);
      await webhooks.deliver(dispute('open'));
      await t.services.processorEvents.runDue();
      assert.deepEqual(
        { ...(await holds()) },
        { currency: 'USD', balanceMinor: -9000, heldMinor: 0, carriedMinor: 0 },
        'the chargeback takes the 90.00 back: the fee is returned with it',
      );
      const carried = await statement();
      assert.deepEqual(
        [
          carried?.totals.chargebacksMinor,
          carried?.totals.platformFeesMinor,
          carried?.payableMinor,
          carried?.carriedOutMinor,
        ],
        [-10_000, -1000, 0, -9000],
      );
      await holds();

      later(1);
      await webhooks.deliver(dispute('won'));
      await t.services.processorEvents.runDue();
      assert.equal((await holds())?.heldMinor, 9000, 'the dispute won is money in: held like a payment');
      assert.equal(await statement(), undefined, 'nothing to pay while it is held');
      later(15);
      const settled = await statement();
      assert.deepEqual([settled?.carriedInMinor, settled?.totals.incomeMinor, settled?.payableMinor], [-9000, 9000, 0]);
      assert.equal(await holds(), undefined, 'nothing owed, nothing carried: no balance to show');
    });

    test('property: whatever the order of sales, refunds, disputes lost or won and statements, the statements paid plus the balance is the vendor income', async () => {
      const step = fc.oneof(
        fc.record({ kind: fc.constant('sale' as const), usd: fc.integer({ min: 1, max: 300 }) }),
        fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), quarter: fc.boolean() }),
        fc.record({ kind: fc.constant('dispute' as const), pick: fc.nat(), won: fc.boolean() }),
        fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 20 }) }),
        fc.record({ kind: fc.constant('statement' as const) }),
      );
      const seen = { chargebacks: 0, won: 0, afterPayout: 0 };
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          // A sale, a statement after the hold, a dispute of that sale (lost or won) after the payout, then whatever comes.
          fc
            .tuple(fc.integer({ min: 1, max: 300 }), fc.boolean(), fc.array(step, { minLength: 2, maxLength: 10 }))
            .map(([usd, won, rest]) => [
              { kind: 'sale' as const, usd },
              { kind: 'days' as const, days: 15 },
              { kind: 'statement' as const },
              { kind: 'dispute' as const, pick: 0, won },
              ...rest,
            ]),
          async (steps) => {
            const vendor = await t.newVendor(`Disputed ${runs++}`);
            const sales: { id: string; disputed: boolean }[] = [];
            let paidOut = 0;
            let statements = 0;
            for (const s of steps) {
              if (s.kind === 'sale') {
                const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: s.usd }] });
                sales.push({ id: await vendor.buy(product.id, { country: 'US', region: 'OR' }), disputed: false });
              } else if (s.kind === 'days') later(s.days);
              else if (s.kind === 'statement') {
                clock.advance(1000);
                const made = await t.services.payouts.create(vendor.vendor.id, 'sandbox', day());
                paidOut += made.reduce((a, m) => a + m.payableMinor, 0);
                statements += made.length;
              } else if (sales.length > 0) {
                const sale = sales[s.pick % sales.length]!;
                clock.advance(1000);
                if (s.kind === 'refund')
                  await t.services.refunds
                    .refund(vendor.scope('sandbox'), sale.id, s.quarter ? { request: { amount: '0.25' } } : {})
                    .catch(() => undefined); // nothing left to refund, or disputed: refused, changes nothing
                else if (!sale.disputed) {
                  sale.disputed = true;
                  const [payment] = await t.services.store.entries.listForTransaction(sale.id);
                  const attempt = (await t.services.store.chargeAttempts.latestFor(sale.id, 'PURCHASE'))!;
                  for (const outcome of s.won ? (['open', 'won'] as const) : (['open'] as const)) {
                    await webhooks.deliver({
                      kind: 'dispute',
                      paymentReference: payment!.externalId!,
                      attemptId: attempt.id,
                      disputeReference: `dp_${kind}_${sale.id}`,
                      amountMinor: payment!.amountTotalMinor,
                      currency: 'USD',
                      outcome,
                    });
                    await t.services.processorEvents.runDue();
                    clock.advance(1000);
                  }
                  seen.chargebacks++;
                  if (s.won) seen.won++;
                  if (statements > 0) seen.afterPayout++;
                }
              }
            }
            let income = 0;
            for (const { id } of sales)
              for (const e of await t.services.store.entries.listForTransaction(id)) income += e.incomeMinor;
            const balance = (await t.services.payouts.balances(vendor.vendor.id, 'sandbox'))[0]?.balanceMinor ?? 0;
            assert.equal(paidOut + balance, income, JSON.stringify(steps));
          },
        ),
        { numRuns: 8 },
      );
      assert.ok(seen.chargebacks > 0 && seen.won > 0 && seen.afterPayout > 0, JSON.stringify(seen));
    });
  });
}
