import type { Scope } from '../model.ts';
import { startBrowserPayment } from './browser-payments.ts';
import { purchaseWithCard } from './card-purchases.ts';
import { quoteOffer } from './offer-quotes.ts';
import { switchPlan, type PlanSwitch } from './plan-switches.ts';
import { changeSeats, type SeatChange } from './seat-changes.ts';
import { purchaseBooking } from './purchase-booking.ts';
import { purchaseStatus } from './purchase-outcomes.ts';
import type {
  BrowserPaymentStart,
  Locality,
  PurchaseDeps,
  PurchaseRequest,
  PurchaseResult,
  Purchasing,
} from './purchase-request.ts';

// The purchase's public names, where they have always been imported from.
export type { Offer } from '../catalog/index.ts';
export { BusinessDetailsError, businessTax, requireBusinessDetails, type BusinessTax } from './business-buyers.ts';
export { isUpgrade, type PlanSwitch } from './plan-switches.ts';
export { newLicenceKey } from './licence-keys.ts';
export type {
  BrowserPaymentStart,
  Locality,
  PurchaseDeps,
  PurchaseRequest,
  PurchaseResult,
} from './purchase-request.ts';

/**
 * A customer buys a product (see PurchaseDeps): a quote, a purchase with a card typed into opentill's
 * form or one paid in the processor's browser session, and what became of it; each use case has its file.
 */
export function purchaseService(deps: PurchaseDeps) {
  const purchasing: Purchasing = { deps, booking: purchaseBooking(deps) };
  return {
    /** How a settled purchase is written, for the reconciler. */
    booking: purchasing.booking,

    /**
     * The purchase recorded under `key` (a checkout form's token), as the customer should see it now;
     * with `productId`, only if it was made on that product's form: undefined if there is none.
     */
    status: (scope: Scope, key: string, productId?: string): Promise<PurchaseResult | undefined> =>
      purchaseStatus(purchasing, scope, key, productId),

    /**
     * The offer behind a product or customized-product id, priced for a customer at `locality` (and,
     * with `vatId`, a business buyer: `business` says whether the ID is valid and reverse charge applies).
     */
    quote: (
      scope: Scope,
      productId: string,
      locality: Locality,
      couponCode?: string,
      vatId?: string,
      quantity?: unknown,
    ) => quoteOffer(deps, scope, productId, locality, couponCode, vatId, quantity),

    /**
     * A purchase whose card was typed into opentill's form (the sandbox's virtual cards): tokenize,
     * record, charge, settle.
     */
    purchase: (scope: Scope, request: PurchaseRequest): Promise<PurchaseResult> =>
      purchaseWithCard(purchasing, scope, request),

    /**
     * A purchase paid in the processor's element in the browser (see startBrowserPayment in
     * browser-payments.ts); with `sessions: false` none is started: NEEDS_BROWSER instead.
     */
    startBrowserPayment: (
      scope: Scope,
      request: Omit<PurchaseRequest, 'card'> & { attemptKey: string },
      options?: { sessions: boolean },
    ): Promise<BrowserPaymentStart> => startBrowserPayment(purchasing, scope, request, options),

    /** A customer's switch of a subscription to another plan in the portal, with its card (plan-switches.ts). */
    switchPlan: (scope: Scope, request: PlanSwitch): Promise<PurchaseResult> => switchPlan(purchasing, scope, request),

    /** More seats now, fewer at the paid period's end, through the migration (seat-changes.ts). */
    changeSeats: (scope: Scope, request: SeatChange) => changeSeats(purchasing, scope, request),
  };
}

export type PurchaseService = ReturnType<typeof purchaseService>;
