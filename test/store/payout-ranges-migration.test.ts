import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { fixedClock } from '../../src/domain/clock.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { storeKinds, startTestApp } from '../helpers/test-app.ts';

/**
 * Migration 0025 (payout statements by range, docs/decisions.md §22) on a ledger that has entries and a
 * statement made before it, whose entries are listed one by one: the entries are numbered in the order
 * they were booked, every row kept; the next statement covers only what the old one did not; the old
 * one still lists its entries; and going back is refused once a statement covers by range.
 */
const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse('2033-02-01T10:00:00.000Z');

for (const kind of await storeKinds()) {
  describe(`migration 0025: payout statements by range (${kind})`, () => {
    test('a statement made before keeps its entries; the next covers the rest; going back is refused then', async () => {
      const clock = fixedClock(new Date(START));
      const t = await startTestApp(kind, { clock });
      try {
        const v = await t.newVendor();
        const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
        for (let i = 0; i < 3; i++) {
          clock.set(new Date(START + i * 1000));
          await v.buy(product.id, { email: `before-${i}@example.com`, country: 'US', currency: 'USD' });
        }
        const db = t.services.database.kysely;
        const migrator = new Migrator({ db, provider: migrationProvider });
        const down = await migrator.migrateTo('0024-operator-accounts');
        assert.equal(down.error, undefined);
        const entries = await db
          .selectFrom('ledger_entries')
          .select(['id', 'income_minor', 'amount_total_minor', 'tax_minor', 'transaction_fee_minor'])
          .where('vendor_id', '=', v.vendor.id)
          .orderBy('created_at')
          .execute();
        assert.equal(entries.length, 3);

        // A statement as the version before made it: the first two entries, each listed.
        const [a, b] = entries;
        const income = Number(a!.income_minor) + Number(b!.income_minor);
        const sum = (k: 'amount_total_minor' | 'tax_minor' | 'transaction_fee_minor') => Number(a![k]) + Number(b![k]);
        await sql`insert into payout_statements (id, vendor_id, environment, currency, number, seq, until, held_from,
            created_at, entry_count, gross_minor, tax_minor, refunds_minor, chargebacks_minor, processor_fees_minor,
            platform_fees_minor, rounding_minor, income_minor, carried_in_minor, payable_minor, carried_out_minor)
          values ('TC-PO_LEGACY', ${v.vendor.id}, 'sandbox', 'USD', 1, 1, ${new Date(START + 1500).toISOString()},
            ${new Date(START + 1500).toISOString()}, ${new Date(START + 1500).toISOString()}, 2,
            ${sum('amount_total_minor')}, ${sum('tax_minor')}, 0, 0, ${sum('transaction_fee_minor')}, 0,
            ${income - (sum('amount_total_minor') - sum('tax_minor') - sum('transaction_fee_minor'))}, ${income}, 0,
            ${income}, 0)`.execute(db);
        await db
          .insertInto('payout_statement_entries')
          .values([
            { entry_id: a!.id, statement_id: 'TC-PO_LEGACY' },
            { entry_id: b!.id, statement_id: 'TC-PO_LEGACY' },
          ])
          .execute();

        const up = await migrator.migrateToLatest();
        assert.equal(up.error, undefined);
        const numbered = await db
          .selectFrom('ledger_entries')
          .select(['id', 'book_seq'])
          .where('vendor_id', '=', v.vendor.id)
          .orderBy('book_seq')
          .execute();
        assert.deepEqual(
          numbered.map((e) => e.id),
          entries.map((e) => e.id),
          'numbered in the order they were booked',
        );

        clock.set(new Date(START + 20 * DAY));
        const [next, ...more] = await t.services.payouts.create(v.vendor.id, 'sandbox', '2033-02-21');
        assert.equal(more.length, 0);
        assert.deepEqual([next!.number, next!.entryCount], [2, 1], 'the third entry alone');
        const lines = async (id: string) => (await t.services.payouts.lines(id)).lines.map((l) => l.entryId);
        assert.deepEqual(await lines('TC-PO_LEGACY'), [a!.id, b!.id]);
        assert.deepEqual(await lines(next!.id), [entries[2]!.id]);
        const [balance] = await t.services.payouts.balances(v.vendor.id, 'sandbox');
        assert.equal(balance?.balanceMinor ?? 0, 0, 'nothing left');

        // An entry booked after the migration is numbered after every one before it.
        await v.buy(product.id, { email: 'after@example.com', country: 'US', currency: 'USD' });
        const last = await db
          .selectFrom('ledger_entries')
          .select(['id', 'book_seq'])
          .orderBy('book_seq', 'desc')
          .executeTakeFirstOrThrow();
        assert.ok(Number(last.book_seq) > Number(numbered.at(-1)!.book_seq));
        assert.ok(!entries.some((e) => e.id === last.id));

        const back = await migrator.migrateTo('0024-operator-accounts');
        assert.match(String(back.error), /cover their entries by range/);
      } finally {
        await t.close();
      }
    });
  });
}
