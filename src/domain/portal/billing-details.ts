import { businessTax, requireBusinessDetails } from '../checkout/index.ts';
import { invalidState } from '../errors.ts';
import type { Scope, SellerOfRecord, Transaction } from '../model.ts';
import { formatDecimal, multiplyByRate } from '../money/index.ts';
import { sellerCountryOf } from '../production-access.ts';
import { REVERSE_CHARGE, taxRateFor, type VatIdChecker } from '../tax/index.ts';
import { canUpdateCard } from './card-change.ts';
import { ownTransaction } from './own-transactions.ts';
import type { TransactionPatch } from '../ports.ts';
import type { PortalDeps } from './portal-deps.ts';

/** What the billing form sends: empty is "none". */
export interface BillingInput {
  name?: string | undefined;
  company?: string | undefined;
  address?: string | undefined;
  vatId?: string | undefined;
}

/** The details were saved; `reverseCharge` says whether it started or stopped applying to the renewals. */
export interface BillingChange {
  transaction: Transaction;
  reverseCharge: 'STARTS' | 'STOPS' | null;
}

export interface BillingDeps {
  vatIds: VatIdChecker;
  sellerOfRecord: SellerOfRecord;
}

/** Purchases with invoices still to come (a subscription until it ends, a saved card the vendor may charge): those whose card is in use. */
export const canEditBilling = (t: Transaction) => canUpdateCard(t);

/**
 * The customer edits the billing name, company, address and VAT ID of a subscription or saved card
 * (docs/decisions.md §34): checked as the checkout checks a business buyer (a VAT ID of the buyer's
 * country, with the company and its address), in one database transaction. When the reverse charge
 * starts or stops applying, the price the renewals are charged is re-priced with it.
 */
export async function editBilling(
  deps: Pick<PortalDeps, 'store' | 'clock'> & BillingDeps,
  scope: Scope,
  email: string,
  id: string,
  input: BillingInput,
): Promise<BillingChange> {
  const current = await ownTransaction(deps, scope, email, id);
  if (!canEditBilling(current))
    throw invalidState(`The billing details of this purchase cannot be changed: it is ${current.status}.`);
  const vendor = await deps.store.vendors.find(scope.vendorId);
  const business = await businessTax(
    deps,
    input.vatId,
    current.country,
    sellerCountryOf(vendor, deps.sellerOfRecord)?.toUpperCase() || null,
  );
  const details = requireBusinessDetails(business, current.country, {
    businessName: input.company,
    buyerAddress: input.address,
  });
  const reverseCharge = business?.reverseCharge ?? false;
  return deps.store.transaction(async (repos) => {
    const locked = await repos.transactions.lock(scope, id);
    // Changed since it was read (cancelled, renewed into dunning's end): nothing is written.
    if (!locked || !canEditBilling(locked) || locked.reverseCharge !== current.reverseCharge)
      throw invalidState('This purchase changed in the meantime; reload the page and try again.');
    const patch: TransactionPatch = {
      buyerName: input.name?.trim().slice(0, 200) || null,
      businessName: details.businessName,
      buyerAddress: details.buyerAddress,
      buyerVatId: business?.vatId ?? null,
      reverseCharge,
      ...(reverseCharge !== locked.reverseCharge ? repriced(locked, reverseCharge) : {}),
    };
    // Invoices already issued keep the details they were issued with (an invoice is not rewritten).
    await repos.portal.keepIssuedBuyers(id, {
      buyerName: locked.buyerName,
      businessName: locked.businessName,
      buyerAddress: locked.buyerAddress,
      buyerVatId: locked.buyerVatId,
      reverseCharge: locked.reverseCharge,
      taxName: locked.taxName,
    });
    await repos.transactions.update(scope, id, patch);
    const flipped = reverseCharge ? 'STARTS' : 'STOPS';
    return {
      transaction: { ...locked, ...patch },
      reverseCharge: reverseCharge === locked.reverseCharge ? null : flipped,
    };
  });
}

/** The tax of the next charges when the reverse charge starts (none) or stops (the buyer's country's). */
function repriced(t: Transaction, reverseCharge: boolean): TransactionPatch {
  const tax = reverseCharge ? REVERSE_CHARGE : taxRateFor(t.country, t.region, { zip: t.postalCode });
  return { taxMinor: multiplyByRate(t.netMinor, tax.rate), taxRate: formatDecimal(tax.rate), taxName: tax.name };
}
