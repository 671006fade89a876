import type { Environment, SellerOfRecord } from '../model.ts';
import { sellerCountryOf } from '../production-access.ts';
import { ratesOfDay, type ExchangeRates } from '../money/index.ts';
import { isEuCountry, type UsSalesTaxTable } from '../tax/index.ts';
import type { Store } from '../ports.ts';
import { parseTaxPeriod, taxReport, type TaxPeriod, type TaxReportRow, type TaxScheme } from './tax-report.ts';

export interface TaxReturnDeps {
  store: Pick<Store, 'taxes'>;
  /** Who sells: the vendor (its country, else SELLER_COUNTRY) or the operator (its country for every sale). */
  sellerOfRecord: SellerOfRecord;
  /** The ZIP-level US table in use: US sales at a ZIP it has are reported per that ZIP too. */
  usSalesTax?: UsSalesTaxTable | undefined;
}

/** The tax returns of a period (docs/decisions.md §23), for one vendor selling for itself or for the operator selling for all. */
export function taxReturnService(deps: TaxReturnDeps) {
  return {
    async report(request: {
      period: string;
      scheme: TaxScheme | 'all';
      environment: Environment;
      vendorId?: string | undefined;
      /** ECB tables (a history, or the day's file): the EU's rows are converted at the period's last day. */
      rates: readonly ExchangeRates[];
    }): Promise<{ period: TaxPeriod; rows: TaxReportRow[] }> {
      const period = parseTaxPeriod(request.period);
      const groups = (
        await deps.store.taxes.groups({
          vendorId: request.vendorId,
          environment: request.environment,
          from: period.from,
          to: period.to,
        })
      ).map((g) => ({ ...g, sellerCountry: sellerCountryOf({ country: g.sellerCountry }, deps.sellerOfRecord) }));
      const needsEuros =
        (request.scheme === 'oss' || request.scheme === 'all') && groups.some((g) => isEuCountry(g.country));
      const eurRates = needsEuros ? ratesOfDay(request.rates, period.lastDay) : undefined;
      return { period, rows: taxReport(groups, request.scheme, eurRates, deps.usSalesTax) };
    },
  };
}

export type TaxReturnService = ReturnType<typeof taxReturnService>;
