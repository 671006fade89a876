import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fixedClock } from '../../src/domain/clock.ts';
import type { PayoutStatement } from '../../src/domain/books/index.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Vendors' balances and payout statements (issue 34, docs/decisions.md §22): a statement per currency
 * covers each entry once; payments wait PAYOUT_HOLD_DAYS, refunds and chargebacks count at once; a
 * negative total is carried to the next statement; and for any vendor and currency, what the statements
 * paid plus the balance is the vendor's income in the ledger.
 */
const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse('2030-03-01T10:00:00.000Z');
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

for (const kind of await storeKinds()) {
  describe(`payout statements (${kind})`, () => {
    const clock = fixedClock(new Date(START));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, env: { PLATFORM_FEE: '10%' } }, (app, vendor) => ((t = app), (v = vendor)));

    // The sandbox: a statement is per environment, and the sandbox's money is the one the test cards move.
    const scope = (vendor = v) => vendor.scope('sandbox');
    async function paid(vendor: TestVendor, usd: number, email = 'buyer@example.com') {
      clock.advance(1000);
      const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: usd }] });
      return vendor.buy(product.id, { email, country: 'DE', currency: 'USD' });
    }
    const income = async (vendor: TestVendor) => {
      const sums = new Map<string, number>();
      for (const tr of await t.services.transactions.listByEmail(scope(vendor), 'buyer@example.com'))
        for (const e of (await t.services.transactions.get(scope(vendor), tr.id)).entries)
          sums.set(e.incomeCurrency, (sums.get(e.incomeCurrency) ?? 0) + e.incomeMinor);
      return sums;
    };
    const payouts = () => t.services.payouts;

    test('a statement covers payments once they are 14 days old, refunds at once, and each entry only once', async () => {
      const vendor = await t.newVendor('Held Ltd');
      clock.set(new Date(START));
      const early = await paid(vendor, 100); // 100.00 net, 10% fee: income 90.00
      clock.set(new Date(START + 10 * DAY));
      await paid(vendor, 50); // income 45.00, 10 days old at the statement: held
      clock.set(new Date(START + 20 * DAY));
      const [statement, ...others] = await payouts().create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
      assert.equal(others.length, 0, 'one currency, one statement');
      assert.deepEqual(
        [
          statement!.currency,
          statement!.number,
          statement!.entryCount,
          statement!.totals.incomeMinor,
          statement!.payableMinor,
        ],
        ['USD', 1, 1, 9000, 9000],
      );
      assert.equal(statement!.totals.platformFeesMinor, 1000);
      assert.equal(statement!.totals.grossMinor, 11900, '100.00 and German VAT');
      assert.equal(statement!.totals.taxMinor, 1900);
      assert.deepEqual(await payouts().balances(vendor.vendor.id, 'sandbox'), [
        { currency: 'USD', balanceMinor: 4500, heldMinor: 4500, carriedMinor: 0 },
      ]);
      // The payment just covered refunded in full: a refund counts at once, and the balance goes below zero.
      clock.advance(1000);
      const refunded = await t.services.refunds.refund(scope(vendor), early, {});
      assert.equal(refunded.status, 'REFUNDED', JSON.stringify(refunded));
      assert.deepEqual(await payouts().balances(vendor.vendor.id, 'sandbox'), [
        { currency: 'USD', balanceMinor: 4500 - 9000, heldMinor: 4500, carriedMinor: 0 },
      ]);
      const [second] = await payouts().create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
      assert.deepEqual(
        [
          second!.number,
          second!.seq,
          second!.entryCount,
          second!.totals.refundsMinor,
          second!.payableMinor,
          second!.carriedOutMinor,
        ],
        [2, 2, 1, -11900, 0, -9000],
        'the refund alone: nothing to pay, 90.00 carried',
      );
      assert.deepEqual(
        await payouts().create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY)),
        [],
        'nothing left to cover',
      );
      // Once the 50.00 is old enough it pays, less what was carried.
      clock.set(new Date(START + 25 * DAY));
      const [third] = await payouts().create(vendor.vendor.id, 'sandbox', date(START + 25 * DAY));
      assert.deepEqual(
        [third!.number, third!.carriedInMinor, third!.totals.incomeMinor, third!.payableMinor, third!.carriedOutMinor],
        [3, -9000, 4500, 0, -4500],
      );
      const lines = await payouts().lines(third!.id);
      assert.equal(lines.lines.length, 1);
      assert.deepEqual(await payouts().balances(vendor.vendor.id, 'sandbox'), [
        { currency: 'USD', balanceMinor: -4500, heldMinor: 0, carriedMinor: -4500 },
      ]);
    });

    test('a statement is paid once, with its reference; another reference later is refused', async () => {
      const vendor = await t.newVendor('Paid Ltd');
      clock.set(new Date(START));
      await paid(vendor, 20);
      clock.set(new Date(START + 15 * DAY));
      const [statement] = await payouts().create(vendor.vendor.id, 'sandbox', date(START + 15 * DAY));
      const first = await payouts().markPaid(statement!.id, ' SEPA-2030-0042 ');
      assert.deepEqual([first.changed, first.statement.paid?.reference], [true, 'SEPA-2030-0042']);
      assert.equal(
        (await payouts().markPaid(statement!.id, 'SEPA-2030-0042')).changed,
        false,
        'the same again changes nothing',
      );
      await assert.rejects(payouts().markPaid(statement!.id, 'OTHER'), { code: 'INVALID_STATE' });
      await assert.rejects(payouts().markPaid(statement!.id, '  '), { code: 'INVALID_INPUT' });
      await assert.rejects(payouts().markPaid('TC-PO_NOTHING', 'x'), { code: 'NOT_FOUND' });
      assert.equal((await payouts().show(statement!.id)).paid?.reference, 'SEPA-2030-0042');
    });

    test('statements made at the same moment: one is made, the other refused, and no entry is covered twice', async () => {
      const vendor = await t.newVendor('Twice Ltd');
      clock.set(new Date(START));
      for (let i = 0; i < 5; i++) await paid(vendor, 10 + i);
      clock.set(new Date(START + 15 * DAY));
      const until = date(START + 15 * DAY);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, () => payouts().create(vendor.vendor.id, 'sandbox', until)),
      );
      const made = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      for (const r of results)
        if (r.status === 'rejected')
          assert.equal((r.reason as { code?: string }).code, 'INVALID_STATE', String(r.reason));
      assert.equal(made.length, 1, 'one statement');
      assert.equal(made[0]!.entryCount, 5);
      const listed = await payouts().list(vendor.vendor.id, 'sandbox');
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!.totals.incomeMinor, (await income(vendor)).get('USD'));
    });

    test("a sandbox whose clock the vendor moved ahead is covered in the vendor's time", async () => {
      const vendor = await t.newVendor('Ahead Ltd');
      clock.set(new Date(START));
      t.services.clock.setOffset(vendor.vendor.id, 40 * DAY);
      try {
        await paid(vendor, 30); // booked 40 days ahead of real time
        t.services.clock.setOffset(vendor.vendor.id, 60 * DAY);
        // 20 days old in the vendor's time, past the hold; in real time it is not even booked yet.
        const [statement] = await payouts().create(vendor.vendor.id, 'sandbox', date(START + 60 * DAY));
        assert.equal(statement?.entryCount, 1);
      } finally {
        t.services.clock.setOffset(vendor.vendor.id, 0);
      }
    });

    test('bad input changes nothing: a date that is no date, an unknown vendor', async () => {
      await assert.rejects(payouts().create(v.vendor.id, 'sandbox', '2030-02-30x'), { code: 'INVALID_INPUT' });
      await assert.rejects(payouts().create(v.vendor.id, 'sandbox', 'yesterday'), { code: 'INVALID_INPUT' });
      await assert.rejects(
        payouts().create(v.vendor.id, 'sandbox', '2030-02-30'),
        { code: 'INVALID_INPUT' },
        'no such day',
      );
      await assert.rejects(payouts().create('TC-VE_NOBODY', 'sandbox', '2030-01-01'), { code: 'NOT_FOUND' });
      assert.deepEqual(await payouts().list(v.vendor.id, 'sandbox'), []);
    });

    test('property: statements paid plus the balance is the vendor income in the ledger, whatever the order of sales, refunds and statements', async () => {
      const step = fc.oneof(
        fc.record({ kind: fc.constant('sale' as const), usd: fc.integer({ min: 1, max: 300 }) }),
        fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), part: fc.integer({ min: 1, max: 4 }) }),
        fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 20 }) }),
        fc.record({ kind: fc.constant('statement' as const), back: fc.integer({ min: 0, max: 10 }) }),
      );
      let runs = 0;
      const seen = { statements: 0, refunds: 0, carried: 0, refused: 0 };
      await fc.assert(
        // Every run sells, waits past the hold and asks for a statement somewhere in its walk, so the
        // runs cannot all miss what the property is about; the rest of the order is the generator's.
        fc.asyncProperty(
          fc
            .tuple(fc.array(step, { maxLength: 6 }), fc.integer({ min: 1, max: 300 }), fc.array(step, { maxLength: 6 }))
            .map(([before, usd, after]) => [
              ...before,
              { kind: 'sale' as const, usd },
              { kind: 'days' as const, days: 15 },
              { kind: 'statement' as const, back: 0 },
              ...after,
            ]),
          async (steps) => {
            const vendor = await t.newVendor(`Property ${runs++}`);
            let now = START;
            clock.set(new Date(now));
            const sales: string[] = [];
            const statements: PayoutStatement[] = [];
            for (const s of steps) {
              if (s.kind === 'sale') sales.push(await paid(vendor, s.usd));
              else if (s.kind === 'refund' && sales.length > 0) {
                clock.advance(1000);
                const id = sales[s.pick % sales.length]!;
                // A quarter, a half... of what is left, or all of it; an error (nothing left) is fine.
                const done = await t.services.refunds
                  .refund(scope(vendor), id, s.part === 4 ? {} : { request: { amount: (s.part * 0.25).toFixed(2) } })
                  .catch(() => undefined);
                if (done?.status === 'REFUNDED') seen.refunds++;
              } else if (s.kind === 'days') clock.set(new Date((now += s.days * DAY)));
              else if (s.kind === 'statement') {
                const day = date(now - s.back * DAY);
                // A day that ends before the last moment the last statement covers is refused (the window only
                // moves forward), and only then. A statement's `until` is exclusive: it covers up to 1 ms before.
                const ends = statements.map((m) => m.until).sort();
                const lastCovered = ends.length > 0 ? new Date(Date.parse(ends.at(-1)!) - 1).toISOString() : '';
                const behind = ends.length > 0 && `${day}T23:59:59.999Z` < lastCovered;
                const made = await payouts()
                  .create(vendor.vendor.id, 'sandbox', day)
                  .then(
                    (m) => (assert.ok(!behind, `${day} is before ${ends.at(-1)}, and was not refused`), m),
                    (err: { code?: string }) => (assert.ok(behind && err.code === 'INVALID_INPUT', String(err)), []),
                  );
                seen.refused += behind ? 1 : 0;
                statements.push(...made);
              }
            }
            const ledger = await income(vendor);
            const balances = new Map(
              (await payouts().balances(vendor.vendor.id, 'sandbox')).map((b) => [b.currency, b.balanceMinor]),
            );
            for (const currency of new Set([...ledger.keys(), ...balances.keys()])) {
              const paidOut = statements.filter((s) => s.currency === currency).reduce((a, s) => a + s.payableMinor, 0);
              assert.equal(paidOut + (balances.get(currency) ?? 0), ledger.get(currency) ?? 0, currency);
            }
            seen.statements += statements.length;
            seen.carried += statements.filter((s) => s.carriedOutMinor < 0).length;
            for (const s of statements) {
              assert.ok(s.payableMinor >= 0);
              assert.equal(s.payableMinor + s.carriedOutMinor, s.totals.incomeMinor + s.carriedInMinor);
            }
          },
        ),
        { numRuns: 12 },
      );
      // The runs walked what the property is about: statements, refunds, and a total carried below zero.
      assert.ok(seen.statements > 0 && seen.refunds > 0, JSON.stringify(seen));
    });
  });
}
