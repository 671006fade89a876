import { requireOnSale, type Offer } from '../catalog/index.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Scope, Transaction } from '../model.ts';
import { formatMinor } from '../money/index.ts';
import { pendingAttempt, type PurchasePlan } from '../payments/index.ts';
import type { AttemptOf } from '../ports.ts';
import type { PriceQuote } from '../tax/index.ts';
import { requireCountry, requireEmail, requirePayload } from '../validation.ts';
import { businessTax, requireBusinessDetails, type BusinessTax } from './business-buyers.ts';
import { newLicenceKey } from './licence-keys.ts';
import { offerQuantity, priceOffer, pricingFor, sellerFrom } from './offer-quotes.ts';
import { firstBilling, openingState, type Opening } from './opening-state.ts';
import type { PurchaseDeps, PurchaseRequest } from './purchase-request.ts';
import { dueToday } from './due-today.ts';
import { migrationOf, type Migration } from './subscription-migration.ts';

/** A purchase checked and priced: the plan of its booking, and what its attempt charges. */
export interface Prepared {
  plan: PurchasePlan;
  transactionId: string;
  amountMinor: number;
  currency: string;
}

/** What a purchase was checked and priced as: all its plan is made of. */
interface Checked {
  scope: Scope;
  request: Omit<PurchaseRequest, 'card'>;
  offer: Offer;
  email: string;
  country: string;
  payload: string | null;
  business: BusinessTax | null;
  businessName: string | null;
  buyerAddress: string | null;
  quote: PriceQuote;
  /** Seats bought (docs/decisions.md §39). */
  quantity: number;
  migration: Migration | null;
  now: Date;
}

/** Checks and prices a purchase and writes the plan of its booking; the card is the caller's. */
export async function prepare(
  deps: PurchaseDeps,
  scope: Scope,
  request: Omit<PurchaseRequest, 'card'>,
): Promise<Prepared> {
  // Every new purchase asks (docs/decisions.md §24): a suspended vendor's, or one in production without the seller's identity, is refused.
  const vendor = await deps.catalog.requireOpenForSale(scope);
  const offer = await deps.catalog.resolveOffer(scope, request.productId);
  // An archived product, or a customized link to one, starts no new sale (docs/decisions.md §28).
  requireOnSale(offer.product);
  const { product, customized } = offer;
  const email = requireEmail(request.email);
  if (customized?.userMail && customized.userMail.toLowerCase() !== email.toLowerCase()) {
    throw new AppError('INVALID_INPUT', 'This payment link is for another e-mail address.');
  }
  const country = requireCountry(request.country);
  const payload = requirePayload(customized?.payload ?? request.payload ?? null);
  const quantity = offerQuantity(offer, request.quantity);
  const coupon = request.coupon
    ? await deps.coupons.redeemable(scope, product.id, request.coupon, { email })
    : undefined;
  const seller = sellerFrom(deps, vendor);
  const business = await businessTax(deps, request.vatId, country, seller.country);
  const { businessName, buyerAddress } = requireBusinessDetails(business, country, request);
  const quote = priceOffer(
    offer,
    { country, region: request.region, zip: request.zip },
    pricingFor(deps, seller, business),
    request.currency,
    coupon,
    quantity,
  );
  requireShownPrice(quote, request.expectedTotal);
  const gateway = deps.gateways[scope.environment];
  const now = deps.clock.now(scope);

  // An upgrade or downgrade replaces an active subscription: no trial, no charge now; the value
  // left on the old one delays the first charge of the new one.
  const replaces = customized?.transactionIdToMigrate ?? request.replaces?.transactionId;
  const migration = replaces
    ? await migrationOf(
        deps,
        scope,
        replaces,
        email,
        quote.netUsdMinor,
        product.chargeFrequency,
        now,
        request.replaces?.atPeriodEnd,
      )
    : null;
  const checked = {
    scope,
    request,
    offer,
    email,
    country,
    payload,
    business,
    businessName,
    buyerAddress,
    quote,
    quantity,
  };
  const prepared = planOf({ ...checked, migration, now }, gateway.provider);
  // Held with its attempt, applied by its renewals (coupon-redemptions.ts, docs/decisions.md §38).
  prepared.plan.transaction.couponId = coupon?.id ?? null;
  return prepared;
}

/** The total the customer was shown, if any, is the one charged: at any other, nothing is recorded or charged. */
function requireShownPrice(quote: PriceQuote, expected: PurchaseRequest['expectedTotal']): void {
  if (expected && (expected.currency.toUpperCase() !== quote.currency || expected.totalMinor !== quote.totalMinor)) {
    throw new AppError(
      'PRICE_CHANGED',
      `The price is now ${formatMinor(quote.totalMinor, quote.currency)} ${quote.currency}, not what was shown; nothing was charged. Check the new price and pay again.`,
    );
  }
}

/** The plan of a checked purchase's booking: its transaction as it opens, its customer and licence, what is charged now. */
function planOf(checked: Checked, provider: string): Prepared {
  const { product, customized } = checked.offer;
  const { request, quote, migration, now } = checked;
  // A plan switch or seat change replaces its subscription: nothing is charged today (docs/decisions.md §39).
  const today = dueToday(checked.offer, quote.totalMinor, migration !== null);
  const inTrial = today.trial;
  const chargeNow = today.charged;
  const transactionId = newId('transaction', now.getTime());
  const opening: Opening = migration
    ? {
        status: 'SUBSCRIPTION_STATUS_ACTIVE' as const,
        flag: 'CHANGED_STATUS_NEW' as const,
        nextCharge: migration.proration.firstCharge.toISOString(),
      }
    : openingState(product.type, inTrial, product.trialDays, product.chargeFrequency, now);
  const transaction = openedTransaction(checked, transactionId, opening, {
    chargeNow,
    paidLater: !!migration || inTrial,
  });
  const plan: PurchasePlan = {
    transaction,
    quote,
    token: '',
    provider,
    card: null,
    customer: {
      id: newId('customer', now.getTime()),
      firstName: request.firstName ?? customized?.userFirstName ?? null,
      lastName: request.lastName ?? customized?.userLastName ?? null,
    },
    licence: product.issuesLicences ? newLicenceKey() : null,
    licenceId: newId('licence', now.getTime()),
    charged: chargeNow,
    migration: migration
      ? {
          oldId: migration.old.id,
          oldNextCharge: migration.old.nextCharge,
          atPeriodEnd: migration.atPeriodEnd,
          who: request.replaces ? 'CUSTOMER' : 'VENDOR',
          keepsLicence: migration.old.productId === product.id,
        }
      : null,
  };
  return { plan, transactionId, amountMinor: chargeNow ? quote.totalMinor : 0, currency: quote.currency };
}

/** The purchase's transaction as it is booked: its customer is filled in then, and its card dropped if none is kept. */
function openedTransaction(
  checked: Checked,
  id: string,
  { status, flag, nextCharge }: Opening,
  { chargeNow, paidLater }: { chargeNow: boolean; paidLater: boolean },
): Transaction {
  const { scope, request, quote, business, now } = checked;
  const { product, customized } = checked.offer;
  return {
    id,
    vendorId: scope.vendorId,
    environment: scope.environment,
    productId: product.id,
    customizedProductId: customized?.id ?? null,
    customerId: '',
    paymentMethodId: newId('paymentMethod', now.getTime()),
    email: checked.email,
    assignedEmail: null,
    businessName: checked.businessName,
    buyerVatId: business?.vatId ?? null,
    postalCode: request.zip?.trim().slice(0, 16) || null,
    buyerAddress: checked.buyerAddress,
    reverseCharge: business?.reverseCharge ?? false,
    locale: request.locale ?? null,
    buyerName:
      [request.firstName, request.lastName]
        .map((part) => part?.trim() ?? '')
        .filter(Boolean)
        .join(' ')
        .slice(0, 200) || null,
    cancelReason: null,
    quantity: checked.quantity,
    productName: product.name,
    type: product.type,
    status,
    chargeFrequency: product.chargeFrequency,
    country: checked.country,
    region: request.region?.toUpperCase() ?? null,
    currency: quote.currency,
    netMinor: quote.netMinor,
    taxMinor: quote.taxMinor,
    netUsdMinor: quote.netUsdMinor,
    taxRate: quote.taxRate,
    taxName: quote.taxName,
    payload: checked.payload,
    whoCanceled: null,
    lastCharge: chargeNow ? now.toISOString() : null,
    nextCharge,
    createdAt: now.toISOString(),
    changeFlag: flag,
    changedAt: now.toISOString(),
    billing: firstBilling(product.type, nextCharge, paidLater, now),
  };
}

/** The attempt a prepared purchase is recorded as, under the client's key (else one of its own) before anything is charged. */
export function attemptOf(
  deps: PurchaseDeps,
  scope: Scope,
  prepared: Prepared,
  plan: PurchasePlan,
  key: string | undefined,
): AttemptOf<'PURCHASE'> {
  return pendingAttempt({
    scope,
    kind: 'PURCHASE',
    key: key ?? `purchase:${prepared.transactionId}`,
    transactionId: prepared.transactionId,
    amountMinor: prepared.amountMinor,
    currency: prepared.currency,
    now: deps.clock.now(),
    plan,
  });
}
