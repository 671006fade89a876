import { randomBytes } from 'node:crypto';
import { periodStart } from '../billing/index.ts';
import type { CatalogService, Offer } from '../catalog/index.ts';
import { discountedNet, type CouponService } from '../catalog/index.ts';
import type { Clock } from '../clock.ts';
import { AppError, invalidState } from '../errors.ts';
import type { ExchangeRates } from '../money/index.ts';
import { declineMessage, type CardInput, type DeclineCode, type PaymentGateway } from '../payments/index.ts';
import type { Booking, ChargeProtocol, Outcome } from '../payments/index.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import { latestUnderKey, pendingAttempt, wasVoided } from '../payments/index.ts';
import { newId } from '../ids.ts';
import { paymentEntry } from '../payments/index.ts';
import type { ChangeFlag, Coupon, Environment, Scope, Transaction, TransactionStatus } from '../model.ts';
import type { PurchasePlan } from '../payments/index.ts';
import type { AttemptOf, ChargeAttempt, Store } from '../ports.ts';
import { formatMinor } from '../money/index.ts';
import { quotePrice, type PriceQuote } from '../tax/index.ts';
import { prorate } from '../billing/index.ts';
import { localCurrencyOf, type UsSalesTaxTable } from '../tax/index.ts';
import { isEuCountry, type VatIdChecker } from '../tax/index.ts';
import { requireCardExpiry, requireCountry, requireEmail, requirePayload } from '../validation.ts';

/**
 * A customer buys a product: price it, take the card, charge what is due now, and record the
 * transaction, its first ledger entry, its licence and its change flag in one database transaction.
 * The hosted checkout, the CLI and the demo seed all buy through here.
 */
export interface PurchaseDeps {
  store: Store;
  clock: Clock;
  catalog: Pick<CatalogService, 'resolveOffer'>;
  coupons: Pick<CouponService, 'redeemable'>;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
  protocol: ChargeProtocol;
  /** Checks a business buyer's VAT ID (a port: format-only now, VIES online one day). */
  vatIds: VatIdChecker;
  /** The ZIP-level US sales tax table imported with `opentill tax import`, if any. */
  usSalesTax?: UsSalesTaxTable | undefined;
  /** The seller's country when the vendor has none in its settings (SELLER_COUNTRY); unset: no reverse charge. */
  sellerCountry?: string | undefined;
  /** Queues the receipt in the booking's database transaction. */
  emails?: EmailRecorder | undefined;
}

export interface PurchaseRequest {
  productId: string;
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  country: string;
  /** US state or Canadian province, where the tax differs by region. */
  region?: string | undefined;
  /** A US ZIP code: its combined rate when the ZIP-level table has it. */
  zip?: string | undefined;
  /** A business buyer: its company name and VAT ID (EU reverse charge when the ID is valid and the seller is elsewhere in the EU). */
  businessName?: string | undefined;
  vatId?: string | undefined;
  /** A business buyer's street and city for the invoice (required with a VAT ID: an EU invoice names the buyer's address). */
  buyerAddress?: string | undefined;
  /** The currency the customer was shown; defaults to the country's own. */
  currency?: string | undefined;
  /** The card typed into opentill's form (the sandbox); absent when the processor takes it in the browser. */
  card?: CardInput | undefined;
  payload?: string | null | undefined;
  /** A coupon code the customer typed. */
  coupon?: string | undefined;
  /** The total the customer was shown; a purchase at any other price is refused, never charged. */
  expectedTotal?: { currency: string; totalMinor: number } | undefined;
  /** The attempt's key from what the client sent (the checkout form's token): the same key is the same purchase. */
  attemptKey?: string | undefined;
}

/** Where the customer is: what decides the currency and the tax. */
export interface Locality {
  country: string;
  region?: string | null | undefined;
  /** A US ZIP code, for the ZIP-level sales tax. */
  zip?: string | null | undefined;
}

/** A business buyer's VAT ID as checked, and whether EU reverse charge applies to its purchase. */
export interface BusinessTax {
  vatId: string;
  valid: boolean;
  reason: string | null;
  reverseCharge: boolean;
}

export type { Offer };

/** A business buyer's detail that is wrong (a VAT ID not of the buyer's country's format, a missing company name): the checkout marks its field. */
export class BusinessDetailsError extends AppError {
  readonly field: 'vatId' | 'businessName' | 'buyerAddress';
  constructor(field: 'vatId' | 'businessName' | 'buyerAddress', message: string) {
    super('INVALID_INPUT', message);
    this.field = field;
  }
}

/** How an offer is priced beyond the customer's place: the vendor's conversion setting, the US table, reverse charge. */
interface PricingContext {
  rates: ExchangeRates;
  allowConversion: boolean;
  usSalesTax?: UsSalesTaxTable | undefined;
  reverseCharge?: boolean | undefined;
}

/** The one price of an offer for a customer: what the widget shows, the checkout shows and charges. */
function priceOffer(
  offer: Offer,
  locality: Locality,
  context: PricingContext,
  currency?: string,
  coupon?: Coupon,
): PriceQuote {
  const { rates } = context;
  return quotePrice({
    discount: coupon ? (netMinor, paidIn) => discountedNet(netMinor, paidIn, coupon, rates) : undefined,
    prices: offer.product.prices,
    currency: currency ?? localCurrencyOf(locality.country) ?? 'USD',
    country: locality.country,
    region: locality.region ?? null,
    zip: locality.zip ?? null,
    usSalesTax: context.usSalesTax,
    reverseCharge: context.reverseCharge,
    allowConversion: context.allowConversion,
    rates,
  });
}

export type PurchaseResult =
  | { status: 'PAID'; transaction: Transaction; quote: PriceQuote; licence: string | null }
  | { status: 'DECLINED'; code: string; message: string }
  /** The gateway's answer is unknown (it threw, timed out or was lost): the reconciler will settle it. */
  | { status: 'PENDING'; attemptKey: string; message: string };

/**
 * A browser payment: the processor's session the customer confirms in the browser (or, already settled,
 * its result); NEEDS_BROWSER when a session is needed and the caller cannot use one (a form sent without its script).
 */
export type BrowserPaymentStart =
  | PurchaseResult
  | { status: 'SESSION'; attemptKey: string; clientSecret: string; mode: 'payment' | 'setup' }
  | { status: 'NEEDS_BROWSER' };

const FORM_USED_ELSEWHERE =
  'This form was already used for another payment (another product, price or seller); nothing was charged. Reload the page and pay again.';

/** The id a checkout form was for: its customized product's, else its product's. */
const offerIdOf = (plan: PurchasePlan) => plan.transaction.customizedProductId ?? plan.transaction.productId;

/** Whether an attempt is a purchase of this vendor and environment, made on the form of `productId` (a product's or a customized product's id). */
const isFormOf = (scope: Scope, attempt: ChargeAttempt, productId: string): attempt is AttemptOf<'PURCHASE'> =>
  attempt.kind === 'PURCHASE' &&
  attempt.scope.vendorId === scope.vendorId &&
  attempt.scope.environment === scope.environment &&
  offerIdOf(attempt.plan) === productId;

/**
 * A form's token is bound to what it was first used for (docs/decisions.md §14, "Form tokens"):
 * its attempts' vendor, environment and product, and, while the latest is open or paid, the total and
 * currency it was for. Resumed from another form, it would show another payment's receipt (and tell an
 * embedding page "paid") as this product's. After a decline the customer may change the details, so a
 * declined attempt binds the product only.
 */
function requireBound(
  scope: Scope,
  latest: { attempt?: ChargeAttempt; passed?: ChargeAttempt },
  request: Pick<PurchaseRequest, 'productId' | 'expectedTotal'>,
) {
  const { attempt, passed } = latest;
  const expected = request.expectedTotal;
  const sameForm =
    (!passed || isFormOf(scope, passed, request.productId)) &&
    (!attempt ||
      (isFormOf(scope, attempt, request.productId) &&
        (!expected ||
          (expected.currency.toUpperCase() === attempt.plan.quote.currency &&
            expected.totalMinor === attempt.plan.quote.totalMinor))));
  if (!sameForm) throw new AppError('IDEMPOTENCY_CONFLICT', FORM_USED_ELSEWHERE);
}

/** Everything booking the purchase writes, recorded with its attempt so the reconciler can book it later. */

export function purchaseService(deps: PurchaseDeps) {
  /** The vendor's settings that pricing depends on: conversion, and its country (for reverse charge). */
  async function sellerOf(scope: Scope) {
    const vendor = await deps.store.vendors.find(scope.vendorId);
    // The vendor's own country from its seller details; else the operator's SELLER_COUNTRY.
    return {
      allowConversion: vendor?.allowConversion ?? true,
      country: (vendor?.country || deps.sellerCountry || '').toUpperCase() || null,
    };
  }

  /**
   * A business buyer's VAT ID checked for the buyer's country, and whether EU reverse charge applies:
   * a valid ID, a buyer in the EU, and a seller in another EU country (decisions §9).
   */
  async function businessTax(
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

  /** The subscription a migration replaces, checked, with its proration. */
  async function migrationOf(
    scope: Scope,
    oldId: string,
    email: string,
    newNetUsdMinor: number,
    frequency: Transaction['chargeFrequency'],
    now: Date,
  ) {
    const old = await deps.store.transactions.find(scope, oldId);
    if (!old || old.type !== 'SUBSCRIPTION' || old.status !== 'SUBSCRIPTION_STATUS_ACTIVE') {
      throw invalidState(
        `This upgrade link replaces subscription ${oldId}, which is ${old ? old.status : 'gone'}; ask the seller for a new link.`,
      );
    }
    const owner = [old.email, old.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
    if (!owner.includes(email.toLowerCase()))
      throw new AppError(
        'INVALID_INPUT',
        'This upgrade link is for the e-mail address of the subscription it replaces.',
      );
    return { old, proration: prorate(old, { netUsdMinor: newNetUsdMinor, chargeFrequency: frequency }, now) };
  }

  /**
   * Books a purchase whose charge succeeded (or that charges nothing now): customer, stored method,
   * transaction, ledger entry and licence, in the settling database transaction.
   */
  const booking: Booking<'PURCHASE'> = {
    async succeeded(repos, attempt, paid) {
      const { plan } = attempt;
      const transaction = { ...plan.transaction };
      const bought = new Date(transaction.createdAt);
      const scope = attempt.scope;
      transaction.customerId = await repos.customers.upsert(scope, {
        id: plan.customer.id,
        email: transaction.email,
        firstName: plan.customer.firstName,
        lastName: plan.customer.lastName,
        createdAt: transaction.createdAt,
      });
      // The card the charge was made with: typed into opentill's form, or saved by the processor's session.
      const card = paid.method ?? plan.card;
      if (card)
        await repos.paymentMethods.insert(
          scope,
          transaction.customerId,
          plan.provider,
          { id: transaction.paymentMethodId!, ...card },
          transaction.createdAt,
        );
      else transaction.paymentMethodId = null;
      if (plan.migration) {
        // Ends the old subscription in the same database transaction, if it is still as priced.
        const current = await repos.transactions.lock(scope, plan.migration.oldId);
        if (
          !current ||
          current.status !== 'SUBSCRIPTION_STATUS_ACTIVE' ||
          current.nextCharge !== plan.migration.oldNextCharge
        ) {
          throw invalidState(
            `Subscription ${plan.migration.oldId} changed (now ${current?.status ?? 'gone'}); ask the seller for a new upgrade link.`,
          );
        }
        await repos.transactions.update(
          scope,
          current.id,
          { status: 'SUBSCRIPTION_STATUS_CANCELLED', whoCanceled: 'VENDOR', nextCharge: null },
          { flag: 'CHANGED_STATUS_CANCELLED', at: transaction.createdAt },
        );
      }
      await repos.transactions.insert(transaction);
      let entryId: string | undefined;
      if (plan.charged) {
        const entry = paymentEntry({
          type: paymentEntryType(transaction.type),
          transaction,
          quote: plan.quote,
          paid,
          provider: plan.provider,
          at: bought,
          periodStart: transaction.type === 'SUBSCRIPTION' ? transaction.createdAt : null,
        });
        await repos.entries.insert(entry);
        entryId = entry.id;
      }
      if (plan.licence) {
        await repos.licences.insert({
          id: plan.licenceId,
          scope,
          productId: transaction.productId,
          transactionId: transaction.id,
          key: plan.licence,
          createdAt: transaction.createdAt,
        });
      }
      // A vaulted method's first "purchase" stores a card; the vendor's own charges of it are not receipts of ours.
      if (transaction.type !== 'VAULTED') {
        await deps.emails?.record(repos, [
          {
            kind: 'RECEIPT',
            scope,
            key: `RECEIPT:${transaction.id}`,
            facts: { transactionId: transaction.id, entryId, date: transaction.nextCharge },
          },
        ]);
      }
    },
  };

  /**
   * The attempt a form's key leads to now: the first one, or after a decline (the customer may try
   * another card on the same form) or a void the one made after it; see `latestUnderKey`.
   */
  const latestAttempt = (formKey: string) =>
    latestUnderKey(deps.protocol.findByKey, formKey, (attempt) => attempt.status === 'DECLINED' || wasVoided(attempt));

  /** What the customer hears of an attempt: paid, declined, or still being confirmed. */
  async function resultOf(scope: Scope, attempt: AttemptOf<'PURCHASE'>, outcome?: Outcome): Promise<PurchaseResult> {
    const { plan } = attempt;
    if (attempt.status === 'SUCCEEDED') {
      const transaction = await deps.store.transactions.find(scope, plan.transaction.id);
      if (!transaction)
        throw new Error(`purchase ${attempt.key} is settled but its transaction ${plan.transaction.id} is missing`);
      return { status: 'PAID', transaction, quote: plan.quote, licence: plan.licence };
    }
    if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN') {
      return {
        status: 'PENDING',
        attemptKey: attempt.key,
        message: 'The payment is being confirmed with the card network. Do not pay again.',
      };
    }
    const code = (attempt.failureCode ?? 'card_declined') as DeclineCode;
    // The processor's own words for a decline just heard; else ours for the code recorded.
    if (outcome?.status === 'DECLINED') return { status: 'DECLINED', code, message: outcome.message };
    const message =
      attempt.status === 'DECLINED' ? declineMessage(code) : 'The payment did not go through; nothing was charged.';
    return { status: 'DECLINED', code, message };
  }

  /** A retry of the same key (the same form sent again): the first attempt's outcome, asking the gateway again if it is still open. */
  async function resume(scope: Scope, attempt: ChargeAttempt): Promise<PurchaseResult> {
    if (
      attempt.kind !== 'PURCHASE' ||
      attempt.scope.vendorId !== scope.vendorId ||
      attempt.scope.environment !== scope.environment
    ) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'This form was already used for another payment; reload the page.');
    }
    if (attempt.status !== 'PENDING' && attempt.status !== 'UNKNOWN') return resultOf(scope, attempt);
    const outcome = await askAgain(attempt);
    return resultOf(scope, await deps.protocol.settle(attempt, outcome, booking), outcome);
  }

  /** An open attempt's outcome, asked of the processor again; one that charges nothing has nothing to ask. */
  async function askAgain(attempt: AttemptOf<'PURCHASE'>): Promise<Outcome> {
    const { plan } = attempt;
    if (plan.session) return await deps.protocol.move(attempt, { session: true });
    if (plan.charged) return await deps.protocol.moveAgain(attempt, { token: plan.token });
    return { status: 'SUCCEEDED', reference: '', feeMinor: 0 };
  }

  /** The processor's browser session of an open attempt, started (or, the same attempt again, found) under its id. */
  async function session(scope: Scope, attempt: AttemptOf<'PURCHASE'>): Promise<BrowserPaymentStart> {
    const { plan } = attempt;
    const started = await deps.gateways[scope.environment].startSession({
      attemptId: attempt.id,
      amountMinor: attempt.amountMinor,
      currency: attempt.currency,
      saveForLater: plan.transaction.type !== 'ONETIME',
      scope,
      customer: {
        email: plan.transaction.email,
        name: [plan.customer.firstName, plan.customer.lastName].filter(Boolean).join(' ') || null,
        reference: null,
      },
      description: plan.transaction.productName,
    });
    if (started.status === 'DECLINED')
      return resultOf(scope, await deps.protocol.settle(attempt, started, booking), started);
    if (attempt.gatewayReference !== started.reference) await deps.protocol.noteReference(attempt, started.reference);
    return { status: 'SESSION', attemptKey: attempt.key, clientSecret: started.clientSecret, mode: started.mode };
  }

  /** Checks and prices a purchase and writes the plan of its booking; the card is the caller's. */
  async function prepare(scope: Scope, request: Omit<PurchaseRequest, 'card'>) {
    const offer = await deps.catalog.resolveOffer(scope, request.productId);
    const { product, customized } = offer;
    const email = requireEmail(request.email);
    if (customized?.userMail && customized.userMail.toLowerCase() !== email.toLowerCase()) {
      throw new AppError('INVALID_INPUT', 'This payment link is for another e-mail address.');
    }
    const country = requireCountry(request.country);
    const payload = requirePayload(customized?.payload ?? request.payload ?? null);
    const coupon = request.coupon ? await deps.coupons.redeemable(scope, product.id, request.coupon) : undefined;
    const seller = await sellerOf(scope);
    const business = await businessTax(request.vatId, country, seller.country);
    // A VAT ID given in the EU must be one of the buyer's country; outside the EU it is kept as typed, without reverse charge.
    if (business && !business.valid && isEuCountry(country))
      throw new BusinessDetailsError('vatId', `VAT ID: ${business.reason}`);
    const businessName = request.businessName?.trim().slice(0, 200) || null;
    if (business && !businessName)
      throw new BusinessDetailsError('businessName', 'Enter the company name that goes with the VAT ID.');
    const buyerAddress = addressLines(request.buyerAddress);
    if (business && !buyerAddress)
      throw new BusinessDetailsError(
        'buyerAddress',
        "Enter the company's street and city: the invoice must name them.",
      );
    const quote = priceOffer(
      offer,
      { country, region: request.region, zip: request.zip },
      {
        rates: deps.rates,
        allowConversion: seller.allowConversion,
        usSalesTax: deps.usSalesTax,
        reverseCharge: business?.reverseCharge,
      },
      request.currency,
      coupon,
    );
    const expected = request.expectedTotal;
    if (expected && (expected.currency.toUpperCase() !== quote.currency || expected.totalMinor !== quote.totalMinor)) {
      throw new AppError(
        'PRICE_CHANGED',
        `The price is now ${formatMinor(quote.totalMinor, quote.currency)} ${quote.currency}, not what was shown; nothing was charged. Check the new price and pay again.`,
      );
    }
    const gateway = deps.gateways[scope.environment];
    const now = deps.clock.now(scope);

    // An upgrade or downgrade replaces an active subscription: no trial, no charge now; the value
    // left on the old one delays the first charge of the new one.
    const migration = customized?.transactionIdToMigrate
      ? await migrationOf(
          scope,
          customized.transactionIdToMigrate,
          email,
          quote.netUsdMinor,
          product.chargeFrequency,
          now,
        )
      : null;
    const inTrial = !migration && product.type === 'SUBSCRIPTION' && product.trialDays > 0;
    const chargeNow = !migration && !inTrial && quote.totalMinor > 0;
    const transactionId = newId('transaction', now.getTime());
    const { status, flag, nextCharge } = migration
      ? {
          status: 'SUBSCRIPTION_STATUS_ACTIVE' as const,
          flag: 'CHANGED_STATUS_NEW' as const,
          nextCharge: migration.proration.firstCharge.toISOString(),
        }
      : openingState(product.type, inTrial, product.trialDays, product.chargeFrequency, now);
    const transaction: Transaction = {
      id: transactionId,
      vendorId: scope.vendorId,
      environment: scope.environment,
      productId: product.id,
      customizedProductId: customized?.id ?? null,
      customerId: '',
      paymentMethodId: newId('paymentMethod', now.getTime()),
      email,
      assignedEmail: null,
      businessName,
      buyerVatId: business?.vatId ?? null,
      postalCode: request.zip?.trim().slice(0, 16) || null,
      buyerAddress,
      reverseCharge: business?.reverseCharge ?? false,
      productName: product.name,
      type: product.type,
      status,
      chargeFrequency: product.chargeFrequency,
      country,
      region: request.region?.toUpperCase() ?? null,
      currency: quote.currency,
      netMinor: quote.netMinor,
      taxMinor: quote.taxMinor,
      netUsdMinor: quote.netUsdMinor,
      taxRate: quote.taxRate,
      taxName: quote.taxName,
      payload,
      whoCanceled: null,
      lastCharge: chargeNow ? now.toISOString() : null,
      nextCharge,
      createdAt: now.toISOString(),
      changeFlag: flag,
      changedAt: now.toISOString(),
      billing: firstBilling(product.type, nextCharge, !!migration || inTrial, now),
    };
    const plan: PurchasePlan = {
      transaction,
      quote,
      token: '',
      provider: gateway.provider,
      card: null,
      customer: {
        id: newId('customer', now.getTime()),
        firstName: request.firstName ?? customized?.userFirstName ?? null,
        lastName: request.lastName ?? customized?.userLastName ?? null,
      },
      licence: product.issuesLicences ? newLicenceKey() : null,
      licenceId: newId('licence', now.getTime()),
      charged: chargeNow,
      migration: migration ? { oldId: migration.old.id, oldNextCharge: migration.old.nextCharge } : null,
    };
    return { plan, transactionId, amountMinor: chargeNow ? quote.totalMinor : 0, currency: quote.currency };
  }

  function attemptOf(
    scope: Scope,
    prepared: Awaited<ReturnType<typeof prepare>>,
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

  return {
    /** How a settled purchase is written, for the reconciler. */
    booking,

    /**
     * The purchase recorded under `key` (a checkout form's token), as the customer should see it now;
     * with `productId`, only if it was made on that product's form: undefined if there is none.
     */
    async status(scope: Scope, key: string, productId?: string): Promise<PurchaseResult | undefined> {
      const latest = await latestAttempt(key);
      const attempt = latest.attempt ?? latest.passed;
      if (!attempt || (productId !== undefined && !isFormOf(scope, attempt, productId))) return undefined;
      return resume(scope, attempt);
    },

    /**
     * The offer behind a product or customized-product id, priced for a customer at `locality` (and,
     * with `vatId`, a business buyer: `business` says whether the ID is valid and reverse charge applies).
     */
    async quote(
      scope: Scope,
      productId: string,
      locality: Locality,
      couponCode?: string,
      vatId?: string,
    ): Promise<{ offer: Offer; quote: PriceQuote; coupon: Coupon | null; business: BusinessTax | null }> {
      const offer = await deps.catalog.resolveOffer(scope, productId);
      const coupon = couponCode ? await deps.coupons.redeemable(scope, offer.product.id, couponCode) : null;
      const seller = await sellerOf(scope);
      const country = requireCountry(locality.country);
      const business = await businessTax(vatId, country, seller.country);
      return {
        offer,
        coupon,
        business,
        quote: priceOffer(
          offer,
          { ...locality, country },
          {
            rates: deps.rates,
            allowConversion: seller.allowConversion,
            usSalesTax: deps.usSalesTax,
            reverseCharge: business?.reverseCharge,
          },
          undefined,
          coupon ?? undefined,
        ),
      };
    },

    /**
     * A purchase whose card was typed into opentill's form (the sandbox's virtual cards): tokenize,
     * record, charge, settle.
     */
    async purchase(scope: Scope, request: PurchaseRequest): Promise<PurchaseResult> {
      // The same form again (a double click, a reload, a retry after "being confirmed"): its attempt.
      // After a decline the form may be sent again with another card: that is a new attempt.
      const latest = request.attemptKey ? await latestAttempt(request.attemptKey) : undefined;
      if (latest) requireBound(scope, latest, request);
      if (latest?.attempt) return resume(scope, latest.attempt);
      const gateway = deps.gateways[scope.environment];
      if (gateway.cardEntry.kind === 'browser')
        throw new AppError('INVALID_INPUT', 'Card details are taken by the payment processor in the browser here.');
      if (!request.card) throw new AppError('INVALID_INPUT', 'Enter the card details.');
      const prepared = await prepare(scope, request);
      requireCardExpiry(request.card);
      const tokenized = await gateway.tokenize(request.card, deps.clock.now(scope));
      if (tokenized.status !== 'OK') return { status: 'DECLINED', code: tokenized.code, message: tokenized.message };
      const plan: PurchasePlan = { ...prepared.plan, token: tokenized.card.token, card: tokenized.card };
      // Recorded before the gateway is asked, under the client's key: a retry finds this attempt.
      const recorded = await deps.protocol.record(attemptOf(scope, prepared, plan, latest?.key));
      if (!recorded.fresh) return resume(scope, recorded.attempt);
      // Nothing due now (a trial, a zero price, a migration): no money moves, the attempt books at once.
      const outcome: Outcome = plan.charged
        ? await deps.protocol.move(recorded.attempt, { token: plan.token })
        : { status: 'SUCCEEDED', reference: '', feeMinor: 0 };
      return resultOf(scope, await deps.protocol.settle(recorded.attempt, outcome, booking), outcome);
    },

    /**
     * A purchase paid in the processor's element in the browser: the attempt is recorded and a
     * session of the processor's started under it, for the amount priced here, never the browser's;
     * the browser confirms it (3-D Secure included) and `status` settles it. Nothing to pay and no
     * card to keep (a free one-time purchase): booked at once. With `sessions: false` (a form sent
     * without its script, which could not use one) no session is started: NEEDS_BROWSER instead.
     */
    async startBrowserPayment(
      scope: Scope,
      request: Omit<PurchaseRequest, 'card'> & { attemptKey: string },
      options: { sessions: boolean } = { sessions: true },
    ): Promise<BrowserPaymentStart> {
      const latest = await latestAttempt(request.attemptKey);
      requireBound(scope, latest, request);
      if (latest.attempt) {
        const open = latest.attempt.status === 'PENDING' || latest.attempt.status === 'UNKNOWN';
        if (!open || !isSession(latest.attempt)) return resume(scope, latest.attempt);
        return options.sessions ? session(scope, latest.attempt) : { status: 'NEEDS_BROWSER' };
      }
      const gateway = deps.gateways[scope.environment];
      if (gateway.cardEntry.kind !== 'browser')
        throw new AppError('INVALID_INPUT', 'This checkout takes the card in its own form.');
      const prepared = await prepare(scope, request);
      const needsCard = prepared.plan.charged || prepared.plan.transaction.type !== 'ONETIME';
      if (needsCard && !options.sessions) return { status: 'NEEDS_BROWSER' };
      const plan: PurchasePlan = { ...prepared.plan, session: needsCard };
      const recorded = await deps.protocol.record(attemptOf(scope, prepared, plan, latest.key));
      // Twenty clicks at once: one recorded the attempt, the others find its session.
      if (!recorded.fresh) return this.startBrowserPayment(scope, request, options);
      if (!needsCard)
        return resultOf(
          scope,
          await deps.protocol.settle(recorded.attempt, { status: 'SUCCEEDED', reference: '', feeMinor: 0 }, booking),
        );
      return session(scope, recorded.attempt);
    },
  };
}

const isSession = (attempt: ChargeAttempt): attempt is AttemptOf<'PURCHASE'> =>
  attempt.kind === 'PURCHASE' && attempt.plan.session === true;

/** The ledger entry type of a purchase's payment. */
function paymentEntryType(type: Transaction['type']): Parameters<typeof paymentEntry>[0]['type'] {
  if (type === 'ONETIME') return 'ONETIME_PAYMENT';
  if (type === 'SUBSCRIPTION') return 'SUBSCRIPTION_PAYMENT';
  return 'VAULTED_PAYMENT';
}

/**
 * A new subscription's schedule. Paid now: period 0 started now and period 1 is next. Trial or
 * migration (`paidLater`): nothing paid yet, and period 0 starts at the first charge.
 */
function firstBilling(
  type: Transaction['type'],
  nextCharge: string | null,
  paidLater: boolean,
  now: Date,
): Transaction['billing'] {
  if (type !== 'SUBSCRIPTION' || !nextCharge) return undefined;
  if (paidLater) return { anchor: nextCharge, period: 0, failedAttempts: 0 };
  return { anchor: now.toISOString(), period: 1, failedAttempts: 0 };
}

function openingState(
  type: Transaction['type'],
  inTrial: boolean,
  trialDays: number,
  frequency: Transaction['chargeFrequency'],
  now: Date,
): { status: TransactionStatus; flag: ChangeFlag; nextCharge: string | null } {
  if (type === 'ONETIME')
    return { status: 'ONE_TIME_PAYMENT_STATUS_PAID', flag: 'CHANGED_STATUS_NEW', nextCharge: null };
  if (type === 'VAULTED')
    return { status: 'VAULTED_STATUS_ACTIVE', flag: 'CHANGED_STATUS_VAULTED_ACTIVATION', nextCharge: null };
  if (inTrial) {
    return {
      status: 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
      flag: 'CHANGED_STATUS_TRIAL',
      nextCharge: new Date(now.getTime() + trialDays * 86_400_000).toISOString(),
    };
  }
  return {
    status: 'SUBSCRIPTION_STATUS_ACTIVE',
    flag: 'CHANGED_STATUS_NEW',
    nextCharge: periodStart(now, frequency, 1).toISOString(),
  };
}

const KEY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Five groups of five, 125 random bits: easy to read out, impossible to guess. */
export function newLicenceKey(): string {
  const bytes = randomBytes(25);
  const chars = [...bytes].map((b) => KEY_ALPHABET[b & 31]).join('');
  return chars.match(/.{5}/g)!.join('-');
}

export type PurchaseService = ReturnType<typeof purchaseService>;

/** An address as typed, kept to what an invoice can print: at most four non-empty lines of 100 characters. */
function addressLines(typed: string | undefined): string | null {
  const lines = (typed ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim().slice(0, 100))
    .filter(Boolean)
    .slice(0, 4);
  return lines.length > 0 ? lines.join('\n') : null;
}
