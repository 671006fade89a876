import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { fixedClock } from '../../src/domain/clock.ts';
import type { Executor } from '../../src/store/database.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A payout statement covers entries by the order they were booked in (docs/decisions.md §22,
 * src/store/payout-coverage.ts), not by the date they carry: an entry booked after a statement, dated
 * before its end (a refund planned before a crash and booked after it, say), falls to the next
 * statement, once; on PostgreSQL an entry still being booked when a statement is made is waited for.
 */
const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse('2032-05-01T10:00:00.000Z');
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Books a copy of the entry as it is now, under a new id, dated `createdAt`, for `amountMinor` (a refund of it when negative). */
async function bookCopy(db: Executor, entryId: string, id: string, createdAt: string, amountMinor: number) {
  const type = amountMinor < 0 ? 'ONETIME_PAYMENT_REFUND' : 'ONETIME_PAYMENT';
  const reverses = amountMinor < 0 ? entryId : null;
  await sql`insert into ledger_entries (id, transaction_id, vendor_id, environment, type, created_at, currency,
      amount_total_minor, tax_minor, net_minor, tax_rate, income_minor, income_currency, affiliate_income_minor,
      service_fee_minor, transaction_fee_minor, reverses_entry_id, period_start, hash_id, external_id,
      payment_provider, country, description, invoice_number)
    select ${id}, transaction_id, vendor_id, environment, ${type}, ${createdAt}, currency, ${amountMinor}, 0,
      ${amountMinor}, tax_rate, ${amountMinor}, income_currency, 0, 0, 0, ${reverses}, null, ${`hash-${id}`}, null,
      payment_provider, country, description, null
    from ledger_entries where id = ${entryId}`.execute(db);
}

for (const kind of await storeKinds()) {
  describe(`payout statements cover by booking order (${kind})`, () => {
    const clock = fixedClock(new Date(START));
    let t: TestApp;
    useTestApp(kind, { clock }, (app) => (t = app));

    async function sale(vendor: TestVendor): Promise<string> {
      const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 50 }] });
      const id = await vendor.buy(product.id, { email: 'ranges@example.com', country: 'US', currency: 'USD' });
      return (await t.services.store.entries.listForTransaction(id))[0]!.id;
    }
    const ledgerIncome = async (vendorId: string) =>
      Number(
        (
          await sql<{
            n: string | number;
          }>`select coalesce(sum(income_minor), 0) as n from ledger_entries where vendor_id = ${vendorId}`.execute(
            t.services.database.kysely,
          )
        ).rows[0]!.n,
      );
    async function assertBooksAddUp(vendorId: string, paid: number) {
      const balances = await t.services.payouts.balances(vendorId, 'sandbox');
      const balance = balances.reduce((a, b) => a + b.balanceMinor, 0);
      assert.equal(paid + balance, await ledgerIncome(vendorId), 'paid plus balance is the income in the ledger');
    }

    test('an entry booked after a statement, dated before its end, falls to the next statement once', async () => {
      clock.set(new Date(START));
      const vendor = await t.newVendor('Late Booking Ltd');
      const paymentId = await sale(vendor);
      clock.set(new Date(START + 20 * DAY));
      const [first] = await t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
      assert.equal(first!.entryCount, 1);

      // Dated a day after the sale: long before the first statement's end and its hold line.
      await bookCopy(
        t.services.database.kysely,
        paymentId,
        'TC-EN_LATE_REFUND',
        new Date(START + DAY).toISOString(),
        -700,
      );
      const [open] = await t.services.payouts.balances(vendor.vendor.id, 'sandbox');
      assert.equal(open!.balanceMinor, -700, 'the late entry is on the balance, not on the statement made before it');

      clock.set(new Date(START + 21 * DAY));
      const [second, ...more] = await t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 21 * DAY));
      assert.equal(more.length, 0);
      assert.deepEqual([second!.entryCount, second!.totals.incomeMinor, second!.carriedOutMinor], [1, -700, -700]);
      const lines = async (id: string) => (await t.services.payouts.lines(id)).lines.map((l) => l.entryId);
      assert.deepEqual(await lines(first!.id), [paymentId]);
      assert.deepEqual(await lines(second!.id), ['TC-EN_LATE_REFUND']);
      assert.deepEqual(await t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 21 * DAY)), []);
      await assertBooksAddUp(vendor.vendor.id, first!.payableMinor + second!.payableMinor);
    });

    test('a payment is held until it is PAYOUT_HOLD_DAYS old to the millisecond, on the statement and the balance alike', async () => {
      clock.set(new Date(START));
      const vendor = await t.newVendor('Hold Line Ltd');
      const paymentId = await sale(vendor);
      const bookedAt = Date.parse(
        (
          await sql<{ created_at: string }>`select created_at from ledger_entries where id = ${paymentId}`.execute(
            t.services.database.kysely,
          )
        ).rows[0]!.created_at,
      );
      clock.set(new Date(bookedAt + 14 * DAY));
      const until = date(bookedAt + 14 * DAY);
      assert.deepEqual(
        await t.services.payouts.create(vendor.vendor.id, 'sandbox', until),
        [],
        'exactly 14 days old: held',
      );
      const [held] = await t.services.payouts.balances(vendor.vendor.id, 'sandbox');
      assert.equal(held!.heldMinor, held!.balanceMinor, 'and the balance says held');
      clock.set(new Date(bookedAt + 14 * DAY + 1));
      const [statement] = await t.services.payouts.create(vendor.vendor.id, 'sandbox', until);
      assert.equal(statement?.entryCount, 1, 'a millisecond later: paid');
    });

    test('a day before the last statement’s end is refused and makes nothing', async () => {
      clock.set(new Date(START));
      const vendor = await t.newVendor('Backwards Ltd');
      await sale(vendor);
      clock.set(new Date(START + 20 * DAY));
      const [first] = await t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
      assert.ok(first);
      await sale(vendor);
      clock.set(new Date(START + 40 * DAY));
      await assert.rejects(t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 19 * DAY)), {
        code: 'INVALID_INPUT',
      });
      assert.equal((await t.services.payouts.list(vendor.vendor.id, 'sandbox')).length, 1, 'nothing made');
      // The day the last one ended on is still fine.
      const [next] = await t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
      assert.equal(next!.entryCount, 1);
    });

    test(
      'an entry still being booked when a statement is made is waited for (PostgreSQL)',
      { skip: kind !== 'postgres' && 'SQLite has one writer at a time' },
      async () => {
        clock.set(new Date(START));
        const vendor = await t.newVendor('In Flight Ltd');
        const paymentId = await sale(vendor);
        clock.set(new Date(START + 20 * DAY));
        const dated = new Date(START + DAY).toISOString();
        const db = t.services.database.kysely;
        let booked!: () => void;
        let release!: () => void;
        const isBooked = new Promise<void>((resolve) => (booked = resolve));
        const released = new Promise<void>((resolve) => (release = resolve));
        // Numbered first, committed last.
        const inFlight = db.transaction().execute(async (trx) => {
          await bookCopy(trx, paymentId, 'TC-EN_IN_FLIGHT', dated, 300);
          booked();
          await released;
        });
        await isBooked;
        await bookCopy(db, paymentId, 'TC-EN_COMMITTED', dated, 200);
        const making = t.services.payouts.create(vendor.vendor.id, 'sandbox', date(START + 20 * DAY));
        let done = false;
        const waiting = async () => {
          while (!done) {
            const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks
            where not granted and mode = 'ShareLock' and relation = 'ledger_entries'::regclass`.execute(db);
            if (Number(rows[0]!.n) > 0) return 'waiting';
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return 'made';
        };
        const first = await Promise.race([waiting(), making.then(() => 'made')]);
        done = true;
        release();
        await inFlight;
        const [statement] = await making;
        assert.equal(first, 'waiting', 'the statement waited for the booking in flight');
        assert.equal(statement!.entryCount, 3, 'the sale, the entry committed and the one that was in flight');
        await assertBooksAddUp(vendor.vendor.id, statement!.payableMinor);
        assert.equal((await t.services.payouts.balances(vendor.vendor.id, 'sandbox'))[0]?.balanceMinor ?? 0, 0);
      },
    );
  });
}
