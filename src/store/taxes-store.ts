import { sql } from 'kysely';
import type { TaxGroup } from '../domain/books/index.ts';
import type { TaxRepository } from '../domain/ports.ts';
import type { Executor } from './database.ts';

/** The ledger's sales of a period summed for the tax returns, in one grouped query (src/domain/books/tax-report.ts). */
export function taxesStore(db: Executor): TaxRepository {
  return {
    async groups(f) {
      let query = db
        .selectFrom('ledger_entries as e')
        .innerJoin('transactions as t', 't.id', 'e.transaction_id')
        .innerJoin('vendors as v', 'v.id', 'e.vendor_id')
        .select([
          'e.country',
          't.region',
          'e.tax_rate',
          'e.currency',
          't.reverse_charge',
          sql<string | null>`case when t.reverse_charge = 1 then t.buyer_vat_id else null end`.as('vat_id'),
          'v.country as seller_country',
          sql<string | null>`case when e.country = 'US' then t.postal_code else null end`.as('zip'),
          sql<number>`sum(e.net_minor)`.as('net'),
          sql<number>`sum(e.tax_minor)`.as('tax'),
          sql<number>`count(*)`.as('n'),
        ])
        .where('e.environment', '=', f.environment)
        .where('e.created_at', '>=', f.from)
        .where('e.created_at', '<', f.to);
      if (f.vendorId !== undefined) query = query.where('e.vendor_id', '=', f.vendorId);
      const rows = await query
        .groupBy([
          'e.country',
          't.region',
          'e.tax_rate',
          'e.currency',
          't.reverse_charge',
          'vat_id',
          'v.country',
          'zip',
        ])
        .execute();
      return rows.map((r): TaxGroup => ({
        country: r.country,
        region: r.region ?? null,
        taxRate: r.tax_rate,
        currency: r.currency,
        reverseCharge: Number(r.reverse_charge) === 1,
        buyerVatId: r.vat_id ?? null,
        sellerCountry: r.seller_country ?? null,
        zip: r.zip ?? null,
        netMinor: Number(r.net),
        taxMinor: Number(r.tax),
        entries: Number(r.n),
      }));
    },
  };
}
