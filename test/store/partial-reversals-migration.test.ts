import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { storeKinds, startTestApp } from '../helpers/test-app.ts';

/**
 * Migration 0019 (partial reversals) on a ledger that has rows: down and up again keep every entry and
 * index, and afterwards a payment takes several reversals while a second booking of one processor id
 * is refused by the database itself. On SQLite the table is rebuilt (a column's UNIQUE cannot be dropped).
 */
for (const kind of await storeKinds()) {
  describe(`migration 0019: several reversals per payment (${kind})`, () => {
    test('down and up again keep the ledger; then parts of a payment are booked, one processor id only once', async () => {
      const t = await startTestApp(kind);
      try {
        const v = await t.newVendor();
        const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 40 }] });
        const id = await v.buy(product.id, { email: 'migrated@example.com' });
        assert.equal(
          (await v.api(`/v1/refund-transaction/${id}`, { method: 'POST', body: { amount: 10 } })).status,
          200,
        );
        const db = t.services.database.kysely;
        const before = await db.selectFrom('ledger_entries').selectAll().orderBy('id').execute();
        const indexes = async () =>
          kind === 'sqlite'
            ? (
                await sql<{
                  name: string;
                }>`select name from sqlite_master where type = 'index' and tbl_name = 'ledger_entries' and sql is not null order by name`.execute(
                  db,
                )
              ).rows.map((r) => r.name)
            : (
                await sql<{
                  name: string;
                }>`select indexname as name from pg_indexes where tablename = 'ledger_entries' and indexname not like '%_pkey' and indexname not like '%_key' order by indexname`.execute(
                  db,
                )
              ).rows.map((r) => r.name);
        const indexesBefore = await indexes();

        const migrator = new Migrator({ db, provider: migrationProvider });
        const down = await migrator.migrateTo('0018-customer-emails');
        assert.equal(down.error, undefined);
        assert.equal(down.results?.at(-1)?.migrationName, '0019-partial-reversals', 'down to just before 0019');
        const up = await migrator.migrateToLatest();
        assert.equal(up.error, undefined);
        assert.deepEqual(
          await db.selectFrom('ledger_entries').selectAll().orderBy('id').execute(),
          before,
          'every entry as it was',
        );
        assert.deepEqual(await indexes(), indexesBefore, 'every index as it was');

        assert.equal(
          (await v.api(`/v1/refund-transaction/${id}`, { method: 'POST', body: { amount: 5 } })).status,
          200,
          'a second part of the payment',
        );
        const [refund] = before.filter((e) => e.reverses_entry_id !== null);
        const reversal = (amountMinor: number, externalId: string | null) => ({
          id: `TC-EN_${externalId}_${amountMinor}`,
          transactionId: id,
          vendorId: v.vendor.id,
          environment: 'sandbox' as const,
          type: 'ONETIME_PAYMENT_REFUND' as const,
          createdAt: new Date().toISOString(),
          currency: 'USD',
          amountTotalMinor: -amountMinor,
          taxMinor: 0,
          netMinor: -amountMinor,
          taxRate: '0',
          incomeMinor: -amountMinor,
          incomeCurrency: 'USD',
          affiliateIncomeMinor: 0,
          serviceFeeMinor: 0,
          transactionFeeMinor: 0,
          reversesEntryId: refund!.reverses_entry_id,
          periodStart: null,
          hashId: `TC-BA_${externalId}_${amountMinor}`,
          externalId,
          paymentProvider: 'SANDBOX',
          country: 'US',
          description: null,
        });
        const book = (amountMinor: number, externalId: string | null) =>
          t.services.store.transaction((repos) => repos.entries.insertReversal(reversal(amountMinor, externalId)));
        await assert.rejects(
          book(100, refund!.external_id),
          (err: Error) => /unique|UNIQUE/.test(err.message),
          'one processor id is booked once',
        );
        // 40.00 paid, 15.00 back: 25.00 is left; not a cent more may be taken back, nor more put back than was taken.
        await assert.rejects(book(2501, 're_too_much'), /refused/);
        await book(2500, 're_the_rest');
        await assert.rejects(book(-4001, 're_more_than_taken_back'), /refused/);
        // Everything is back. A dispute and its win heard together net to nothing: booked as one, checked
        // where they end; alone, the dispute is refused, and nothing of a refused pair stays.
        const dispute = { ...reversal(1000, 'dp_late'), type: 'CHARGEBACK' as const };
        const won = { ...reversal(-1000, 'dp_late:won'), type: 'CHARGEBACK' as const, reversesEntryId: dispute.id };
        await assert.rejects(
          t.services.store.transaction((repos) => repos.entries.insertReversal(dispute)),
          /refused/,
        );
        await assert.rejects(
          t.services.store.transaction((repos) =>
            repos.entries.insertReversal(dispute, { ...won, amountTotalMinor: 999 }),
          ),
          /refused/,
          'a pair that does not net to what fits is refused whole',
        );
        assert.equal(
          await t.services.store.entries.findByExternalId(id, 'dp_late'),
          undefined,
          'nothing of a refused pair stays',
        );
        await t.services.store.transaction((repos) => repos.entries.insertReversal(dispute, won));
        assert.ok(await t.services.store.entries.findByExternalId(id, 'dp_late:won'));
        await assert.rejects(
          t.services.store.transaction((repos) => repos.entries.insert(reversal(1, 're_through_insert'))),
          /insertReversal/,
          'a reversal cannot go around the check',
        );
      } finally {
        await t.close();
      }
    });
  });
}
