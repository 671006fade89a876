import type { VendorClock } from '../clock.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import type { ExchangeRates, PlatformFee } from '../money/index.ts';
import type { UsSalesTaxTable } from '../tax/index.ts';
import type { PaymentGateway } from '../payments/index.ts';
import type { Environment, Scope, Transaction } from '../model.ts';
import type { Store } from '../ports.ts';

/** What the billing engine (billing.ts) runs on. */
export interface BillingDeps {
  store: Store;
  clock: VendorClock;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
  /** The platform's fee on a vendor's payments unless the operator set the vendor one of its own (PLATFORM_FEE). */
  platformFee: PlatformFee;
  /** The ZIP-level US sales tax table, when one was imported: renewals are taxed like their first payment. */
  usSalesTax?: UsSalesTaxTable | undefined;
  /** Queues the customers' e-mails (renewed, payment failed, action required) in each batch's write. */
  emails?: EmailRecorder | undefined;
}

export interface BillingOptions {
  /** Subscriptions per batch (one claim, one write transaction). */
  batchSize?: number;
  /** How long a renewal attempt left open holds its row from other claims; a crashed worker's rows return after this. */
  leaseMs?: number;
  /** How long to wait before asking the gateway again about a charge whose outcome was unknown. */
  unknownRetryMs?: number;
  /** Gateway calls in flight at once within a batch. */
  gatewayConcurrency?: number;
  /** A gateway call unanswered after this is UNKNOWN (asked again under the same attempt later). */
  gatewayTimeoutMs?: number;
}

export interface BillingReport {
  renewed: number;
  declined: number;
  /** Cancelled at the end of the paid period. */
  ended: number;
  /** Cancelled after the last dunning retry failed. */
  failed: number;
  /** Gateway outcome unknown: asked again later. */
  unknown: number;
  expiredOffers: number;
  /** Subscriptions that could not be billed (say, no longer priceable); held and retried later. */
  errors: string[];
}

/** A run that did nothing yet: what a billing run starts from, and what a run of another loop reports of billing. */
export const emptyBillingReport = (): BillingReport => ({
  renewed: 0,
  declined: 0,
  ended: 0,
  failed: 0,
  unknown: 0,
  expiredOffers: 0,
  errors: [],
});

/** The engine's dependencies with its options settled: what each of its use cases takes first. */
export interface BillingContext {
  deps: BillingDeps;
  batchSize: number;
  leaseMs: number;
  unknownRetryMs: number;
  concurrency: number;
  gatewayTimeoutMs: number;
}

export function billingContext(deps: BillingDeps, options: BillingOptions): BillingContext {
  return {
    deps,
    batchSize: options.batchSize ?? 500,
    leaseMs: options.leaseMs ?? 120_000,
    unknownRetryMs: options.unknownRetryMs ?? 15 * 60_000,
    concurrency: options.gatewayConcurrency ?? 16,
    gatewayTimeoutMs: options.gatewayTimeoutMs ?? 30_000,
  };
}

export const scopeOf = (t: Pick<Transaction, 'vendorId' | 'environment'>): Scope => ({
  vendorId: t.vendorId,
  environment: t.environment,
});
