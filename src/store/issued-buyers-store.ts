import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';

/** The billing details invoices were issued with, kept when the customer edits them (migration 0032, docs/decisions.md §34). */
export function issuedBuyersStore(db: Executor): Pick<Repositories['portal'], 'keepIssuedBuyers' | 'issuedBuyer'> {
  return {
    async keepIssuedBuyers(transactionId, buyer) {
      // One statement: every invoiced entry of the transaction without a kept row gets one.
      await db
        .insertInto('issued_invoice_buyers')
        .columns([
          'entry_id',
          'transaction_id',
          'buyer_name',
          'business_name',
          'buyer_address',
          'buyer_vat_id',
          'reverse_charge',
          'tax_name',
        ])
        .expression((eb) =>
          eb
            .selectFrom('ledger_entries as e')
            .select((s) => [
              'e.id',
              'e.transaction_id',
              s.val(buyer.buyerName).as('buyer_name'),
              s.val(buyer.businessName).as('business_name'),
              s.val(buyer.buyerAddress).as('buyer_address'),
              s.val(buyer.buyerVatId).as('buyer_vat_id'),
              s.val(buyer.reverseCharge ? 1 : 0).as('reverse_charge'),
              s.val(buyer.taxName).as('tax_name'),
            ])
            .where('e.transaction_id', '=', transactionId)
            .where('e.invoice_number', 'is not', null)
            .where((w) =>
              w.not(
                w.exists(
                  w.selectFrom('issued_invoice_buyers as k').select('k.entry_id').whereRef('k.entry_id', '=', 'e.id'),
                ),
              ),
            ),
        )
        .execute();
    },
    async issuedBuyer(entryId) {
      const row = await db
        .selectFrom('issued_invoice_buyers')
        .selectAll()
        .where('entry_id', '=', entryId)
        .executeTakeFirst();
      return (
        row && {
          buyerName: row.buyer_name,
          businessName: row.business_name,
          buyerAddress: row.buyer_address,
          buyerVatId: row.buyer_vat_id,
          reverseCharge: Number(row.reverse_charge) === 1,
          taxName: row.tax_name,
        }
      );
    },
  };
}
