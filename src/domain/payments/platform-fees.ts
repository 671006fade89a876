import { parsePlatformFee, type ExchangeRates, type PlatformFee } from '../money/index.ts';
import type { Repositories } from '../ports.ts';

/** What a booking needs to take the platform's fee: the operator's default (PLATFORM_FEE) and the rate table. */
export interface FeeTerms {
  platformFee: PlatformFee;
  rates: ExchangeRates;
}

/**
 * The fee terms in force for a vendor as a payment is booked: the vendor's own fee when the operator
 * set one (`opentill vendor fee`), else the default. Read in the booking's own database transaction,
 * so a fee changed a moment before applies and no entry booked before changes.
 */
export async function vendorFeeTerms(
  repos: Pick<Repositories, 'vendors'>,
  vendorId: string,
  terms: FeeTerms,
): Promise<FeeTerms> {
  const own = (await repos.vendors.find(vendorId))?.platformFee;
  return own ? { platformFee: parsePlatformFee(own), rates: terms.rates } : terms;
}
