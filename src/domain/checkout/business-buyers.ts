import { AppError } from '../errors.ts';
import { isEuCountry } from '../tax/index.ts';
import type { PurchaseDeps, PurchaseRequest } from './purchase-request.ts';

/** A business buyer's VAT ID as checked, and whether EU reverse charge applies to its purchase. */
export interface BusinessTax {
  vatId: string;
  valid: boolean;
  reason: string | null;
  reverseCharge: boolean;
}

/** A business buyer's detail that is wrong (a VAT ID not of the buyer's country's format, a missing company name): the checkout marks its field. */
export class BusinessDetailsError extends AppError {
  readonly field: 'vatId' | 'businessName' | 'buyerAddress';
  constructor(field: 'vatId' | 'businessName' | 'buyerAddress', message: string) {
    super('INVALID_INPUT', message);
    this.field = field;
  }
}

/**
 * A business buyer's VAT ID checked for the buyer's country, and whether EU reverse charge applies:
 * a valid ID, a buyer in the EU, and a seller in another EU country (decisions §9).
 */
export async function businessTax(
  deps: Pick<PurchaseDeps, 'vatIds'>,
  vatId: string | undefined,
  buyerCountry: string,
  sellerCountry: string | null,
): Promise<BusinessTax | null> {
  if (!vatId?.trim()) return null;
  const checked = await deps.vatIds.check(vatId, buyerCountry);
  const reverseCharge =
    checked.valid && isEuCountry(buyerCountry) && isEuCountry(sellerCountry) && sellerCountry !== buyerCountry;
  return { vatId: checked.normalized, valid: checked.valid, reason: checked.reason, reverseCharge };
}

/**
 * A business buyer's company name and address as the invoice prints them, refused when the VAT ID or
 * either of them is wrong or missing; without a VAT ID both are optional.
 */
export function requireBusinessDetails(
  business: BusinessTax | null,
  country: string,
  request: Pick<PurchaseRequest, 'businessName' | 'buyerAddress'>,
): { businessName: string | null; buyerAddress: string | null } {
  // A VAT ID given in the EU must be one of the buyer's country; outside the EU it is kept as typed, without reverse charge.
  if (business && !business.valid && isEuCountry(country))
    throw new BusinessDetailsError('vatId', `VAT ID: ${business.reason}`);
  const businessName = request.businessName?.trim().slice(0, 200) || null;
  if (business && !businessName)
    throw new BusinessDetailsError('businessName', 'Enter the company name that goes with the VAT ID.');
  const buyerAddress = addressLines(request.buyerAddress);
  if (business && !buyerAddress)
    throw new BusinessDetailsError('buyerAddress', "Enter the company's street and city: the invoice must name them.");
  return { businessName, buyerAddress };
}

/** An address as typed, kept to what an invoice can print: at most four non-empty lines of 100 characters. */
function addressLines(typed: string | undefined): string | null {
  const lines = (typed ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim().slice(0, 100))
    .filter(Boolean)
    .slice(0, 4);
  return lines.length > 0 ? lines.join('\n') : null;
}
