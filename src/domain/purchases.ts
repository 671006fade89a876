import { randomBytes } from 'node:crypto';
import { periodStart } from './billing-period.ts';
import type { CatalogService, Offer } from './catalog.ts';
import { discountedNet, type CouponService } from './coupons.ts';
import type { Clock } from './clock.ts';
import { AppError, invalidState } from './errors.ts';
import type { ExchangeRates } from './exchange-rates.ts';
import type { CardInput, PaymentGateway } from './gateway.ts';
import { pendingAttempt } from './charge-attempts.ts';
import { newId } from './ids.ts';
import { paymentEntry } from './ledger.ts';
import type { ChangeFlag, Coupon, Environment, Scope, Transaction, TransactionStatus } from './model.ts';
import type { Store } from './ports.ts';
import { formatMinor } from './money.ts';
import { quotePrice, type PriceQuote } from './pricing.ts';
import { prorate } from './proration.ts';
import { localCurrencyOf } from './tax-rates.ts';
import { requireCardExpiry, requireCountry, requireEmail, requirePayload } from './validation.ts';

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
}

export interface PurchaseRequest {
  productId: string;
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  country: string;
  /** US state or Canadian province, where the tax differs by region. */
  region?: string | undefined;
  /** The currency the customer was shown; defaults to the country's own. */
  currency?: string | undefined;
  card: CardInput;
  payload?: string | null | undefined;
  /** A coupon code the customer typed. */
  coupon?: string | undefined;
  /** The total the customer was shown; a purchase at any other price is refused, never charged. */
  expectedTotal?: { currency: string; totalMinor: number } | undefined;
}

/** Where the customer is: what decides the currency and the tax. */
export interface Locality {
  country: string;
  region?: string | null | undefined;
}

export type { Offer };

/** The one price of an offer for a customer: what the widget shows, the checkout shows and charges. */
function priceOffer(offer: Offer, locality: Locality, rates: ExchangeRates, allowConversion: boolean, currency?: string, coupon?: Coupon): PriceQuote {
  return quotePrice({
    discount: coupon ? (netMinor, paidIn) => discountedNet(netMinor, paidIn, coupon, rates) : undefined,
    prices: offer.product.prices,
    currency: currency ?? localCurrencyOf(locality.country) ?? 'USD',
    country: locality.country,
    region: locality.region ?? null,
    allowConversion,
    rates,
  });
}

export type PurchaseResult =
  { status: 'PAID'; transaction: Transaction; quote: PriceQuote; licence: string | null } | { status: 'DECLINED'; code: string; message: string };

export function purchaseService(deps: PurchaseDeps) {
  const conversionAllowed = async (scope: Scope) => (await deps.store.vendors.find(scope.vendorId))?.allowConversion ?? true;

  /** The subscription a migration replaces, checked, with its proration. */
  async function migrationOf(scope: Scope, oldId: string, email: string, newNetUsdMinor: number, frequency: Transaction['chargeFrequency'], now: Date) {
    const old = await deps.store.transactions.find(scope, oldId);
    if (!old || old.type !== 'SUBSCRIPTION' || old.status !== 'SUBSCRIPTION_STATUS_ACTIVE') {
      throw invalidState(`This upgrade link replaces subscription ${oldId}, which is ${old ? old.status : 'gone'}; ask the seller for a new link.`);
    }
    const owner = [old.email, old.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
    if (!owner.includes(email.toLowerCase()))
      throw new AppError('INVALID_INPUT', 'This upgrade link is for the e-mail address of the subscription it replaces.');
    return { old, proration: prorate(old, { netUsdMinor: newNetUsdMinor, chargeFrequency: frequency }, now) };
  }

  return {
    /** The offer behind a product or customized-product id, priced for a customer at `locality`. */
    async quote(scope: Scope, productId: string, locality: Locality, couponCode?: string): Promise<{ offer: Offer; quote: PriceQuote; coupon: Coupon | null }> {
      const offer = await deps.catalog.resolveOffer(scope, productId);
      const coupon = couponCode ? await deps.coupons.redeemable(scope, offer.product.id, couponCode) : null;
      const allowConversion = await conversionAllowed(scope);
      return {
        offer,
        coupon,
        quote: priceOffer(offer, { ...locality, country: requireCountry(locality.country) }, deps.rates, allowConversion, undefined, coupon ?? undefined),
      };
    },

    async purchase(scope: Scope, request: PurchaseRequest): Promise<PurchaseResult> {
      const offer = await deps.catalog.resolveOffer(scope, request.productId);
      const { product, customized } = offer;
      const email = requireEmail(request.email);
      if (customized?.userMail && customized.userMail.toLowerCase() !== email.toLowerCase()) {
        throw new AppError('INVALID_INPUT', 'This payment link is for another e-mail address.');
      }
      const country = requireCountry(request.country);
      const payload = requirePayload(customized?.payload ?? request.payload ?? null);
      const coupon = request.coupon ? await deps.coupons.redeemable(scope, product.id, request.coupon) : undefined;
      const quote = priceOffer(offer, { country, region: request.region }, deps.rates, await conversionAllowed(scope), request.currency, coupon);
      const expected = request.expectedTotal;
      if (expected && (expected.currency.toUpperCase() !== quote.currency || expected.totalMinor !== quote.totalMinor)) {
        throw new AppError(
          'PRICE_CHANGED',
          `The price is now ${formatMinor(quote.totalMinor, quote.currency)} ${quote.currency}, not what was shown; nothing was charged. Check the new price and pay again.`,
        );
      }
      requireCardExpiry(request.card);
      const gateway = deps.gateways[scope.environment];
      const now = deps.clock.now(scope);
      const tokenized = await gateway.tokenize(request.card, now);
      if (tokenized.status !== 'OK') return { status: 'DECLINED', code: tokenized.code, message: tokenized.message };

      // An upgrade or downgrade replaces an active subscription: no trial, no charge now; the value
      // left on the old one delays the first charge of the new one.
      const migration = customized?.transactionIdToMigrate
        ? await migrationOf(scope, customized.transactionIdToMigrate, email, quote.netUsdMinor, product.chargeFrequency, now)
        : null;
      const inTrial = !migration && product.type === 'SUBSCRIPTION' && product.trialDays > 0;
      const chargeNow = !migration && !inTrial && quote.totalMinor > 0;
      const transactionId = newId('transaction', now.getTime());
      let charge: { reference: string; feeMinor: number } | null = null;
      if (chargeNow) {
        // Recorded before the gateway is called: a crash leaves a PENDING attempt to reconcile.
        const attempt = pendingAttempt({
          scope,
          key: `purchase:${transactionId}`,
          transactionId: null,
          amountMinor: quote.totalMinor,
          currency: quote.currency,
          now,
        });
        const attemptId = attempt.id;
        await deps.store.chargeAttempts.insert(attempt);
        const result = await gateway.charge({ attemptId, token: tokenized.card.token, amountMinor: quote.totalMinor, currency: quote.currency });
        const settledAt = deps.clock.now(scope).toISOString();
        if (result.status !== 'SUCCEEDED') {
          await deps.store.chargeAttempts.settle(attemptId, {
            status: result.status === 'UNKNOWN' ? 'UNKNOWN' : 'DECLINED',
            gatewayReference: null,
            failureCode: result.status === 'UNKNOWN' ? null : result.code,
            updatedAt: settledAt,
          });
          if (result.status === 'UNKNOWN') {
            throw new AppError('SERVICE_UNAVAILABLE', 'The payment provider did not answer; the payment is being checked. Do not pay again.');
          }
          return { status: 'DECLINED', code: result.code, message: result.message };
        }
        charge = { reference: result.reference, feeMinor: result.feeMinor };
        await deps.store.chargeAttempts.settle(attemptId, {
          status: 'SUCCEEDED',
          gatewayReference: result.reference,
          failureCode: null,
          transactionId,
          updatedAt: settledAt,
        });
      }

      const { status, flag, nextCharge } = migration
        ? { status: 'SUBSCRIPTION_STATUS_ACTIVE' as const, flag: 'CHANGED_STATUS_NEW' as const, nextCharge: migration.proration.firstCharge.toISOString() }
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
        lastCharge: charge ? now.toISOString() : null,
        nextCharge,
        createdAt: now.toISOString(),
        changeFlag: flag,
        changedAt: now.toISOString(),
        // Paid now: period 0 started now and period 1 is next. Trial or migration: nothing paid
        // yet, and period 0 starts at the first charge.
        billing:
          product.type !== 'SUBSCRIPTION' || !nextCharge
            ? undefined
            : migration || inTrial
              ? { anchor: nextCharge, period: 0, failedAttempts: 0 }
              : { anchor: now.toISOString(), period: 1, failedAttempts: 0 },
      };
      const licence = product.issuesLicences ? newLicenceKey() : null;

      await deps.store.transaction(async (repos) => {
        transaction.customerId = await repos.customers.upsert(scope, {
          id: newId('customer', now.getTime()),
          email,
          firstName: request.firstName ?? customized?.userFirstName ?? null,
          lastName: request.lastName ?? customized?.userLastName ?? null,
          createdAt: now.toISOString(),
        });
        await repos.paymentMethods.insert(
          scope,
          transaction.customerId,
          gateway.provider,
          { id: transaction.paymentMethodId!, ...tokenized.card },
          now.toISOString(),
        );
        if (migration) {
          // Ends the old subscription in the same database transaction, if it is still as priced.
          const current = await repos.transactions.lock(scope, migration.old.id);
          if (!current || current.status !== 'SUBSCRIPTION_STATUS_ACTIVE' || current.nextCharge !== migration.old.nextCharge) {
            throw invalidState(`Subscription ${migration.old.id} changed (now ${current?.status ?? 'gone'}); ask the seller for a new upgrade link.`);
          }
          await repos.transactions.update(
            scope,
            current.id,
            { status: 'SUBSCRIPTION_STATUS_CANCELLED', whoCanceled: 'VENDOR', nextCharge: null },
            { flag: 'CHANGED_STATUS_CANCELLED', at: now.toISOString() },
          );
        }
        await repos.transactions.insert(transaction);
        if (charge) {
          await repos.entries.insert(
            paymentEntry({
              type: product.type === 'ONETIME' ? 'ONETIME_PAYMENT' : product.type === 'SUBSCRIPTION' ? 'SUBSCRIPTION_PAYMENT' : 'VAULTED_PAYMENT',
              transaction,
              currency: quote.currency,
              netMinor: quote.netMinor,
              taxMinor: quote.taxMinor,
              taxRate: quote.taxRate,
              feeMinor: charge.feeMinor,
              gatewayReference: charge.reference,
              provider: gateway.provider,
              at: now,
              periodStart: product.type === 'SUBSCRIPTION' ? now.toISOString() : null,
            }),
          );
        }
        if (licence) {
          await repos.licences.insert({
            id: newId('licence', now.getTime()),
            scope,
            productId: product.id,
            transactionId,
            key: licence,
            createdAt: now.toISOString(),
          });
        }
      });
      return { status: 'PAID', transaction, quote, licence };
    },
  };
}

function openingState(
  type: Transaction['type'],
  inTrial: boolean,
  trialDays: number,
  frequency: Transaction['chargeFrequency'],
  now: Date,
): { status: TransactionStatus; flag: ChangeFlag; nextCharge: string | null } {
  if (type === 'ONETIME') return { status: 'ONE_TIME_PAYMENT_STATUS_PAID', flag: 'CHANGED_STATUS_NEW', nextCharge: null };
  if (type === 'VAULTED') return { status: 'VAULTED_STATUS_ACTIVE', flag: 'CHANGED_STATUS_VAULTED_ACTIVATION', nextCharge: null };
  if (inTrial) {
    return {
      status: 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
      flag: 'CHANGED_STATUS_TRIAL',
      nextCharge: new Date(now.getTime() + trialDays * 86_400_000).toISOString(),
    };
  }
  return { status: 'SUBSCRIPTION_STATUS_ACTIVE', flag: 'CHANGED_STATUS_NEW', nextCharge: periodStart(now, frequency, 1).toISOString() };
}

const KEY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Five groups of five, 125 random bits: easy to read out, impossible to guess. */
export function newLicenceKey(): string {
  const bytes = randomBytes(25);
  const chars = [...bytes].map((b) => KEY_ALPHABET[b & 31]).join('');
  return chars.match(/.{5}/g)!.join('-');
}

export type PurchaseService = ReturnType<typeof purchaseService>;
