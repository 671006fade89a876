import { periodStart, retryAt } from './billing-period.ts';
import { pendingAttempt } from '../payments/index.ts';
import { askGateway, settledAs, type Booking } from '../payments/index.ts';
import type { RenewalPlan } from '../payments/index.ts';
import { isoString, type VendorClock } from '../clock.ts';
import type { EmailEvent } from '../notifications/index.ts';
import type { EmailRecorder } from '../notifications/index.ts';
import type { ExchangeRates } from '../money/index.ts';
import type { UsSalesTaxTable } from '../tax/index.ts';
import type { ChargeResult, PaymentGateway } from '../payments/index.ts';
import { paymentEntry } from '../payments/index.ts';
import type { Environment, Scope, Transaction } from '../model.ts';
import type {
  AttemptOf,
  BillingState,
  BillingWrite,
  ChargeAttempt,
  ClaimCursor,
  DueSubscription,
  DueTransaction,
  Repositories,
  Store,
} from '../ports.ts';
import { listPrice, quotePrice, type PriceQuote } from '../tax/index.ts';

/**
 * The billing engine: renewals at nextCharge, the first charge after a trial, dunning retries,
 * the end of cancelled subscriptions' paid periods, and expiry of customized products.
 *
 * Exactly once: a charge's identity is (transaction, period, try). Its attempt is committed before
 * the gateway is called, and the gateway is always asked with that attempt's id, which a provider
 * answers with the first outcome when asked again. The ledger entry, new dates, status, change flag
 * and settled attempt are then written in one database transaction, guarded by the row's state, and
 * the ledger's unique (transaction, period) index is the last line of defence. A worker killed at
 * any point leaves either nothing or a PENDING attempt that the next run settles through the same id.
 */
export interface BillingDeps {
  store: Store;
  clock: VendorClock;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
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

type Plan =
  | { kind: 'end'; due: DueSubscription; at: Date }
  | { kind: 'clear'; due: DueSubscription; at: Date }
  | { kind: 'hold'; due: DueSubscription; at: Date; reason: string }
  | {
      kind: 'charge';
      due: DueSubscription;
      at: Date;
      quote: PriceQuote;
      period: number;
      periodStart: string;
      key: string;
      /** The processor's payment of the try before, held for the customer's authentication: cancelled before this try charges. */
      heldPayment?: string;
    };

export type AuthenticatedRenewal = 'BOOKED' | 'ALREADY_BOOKED' | 'NOT_PAID' | 'PENDING';

/** A renewal's decline without asking any gateway. */
const NO_METHOD: ChargeResult = {
  status: 'DECLINED',
  code: 'card_declined',
  message: 'No stored payment method.',
  permanent: true,
};

/** Statuses in which a paid renewal moves the subscription on to its next period. */
const BILLABLE: ReadonlySet<string> = new Set([
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
]);

/** Renewals may be charged in the purchase's currency converted from USD once the vendor removed that currency's price. */
const RENEWALS_CONVERT = true;

/**
 * The net (before tax) and currency a subscription's next renewal charges: its offer's prices as they
 * are now, in the currency of the purchase, without the coupon of the first payment. The transaction's
 * own net stays the price of the purchase; the dashboard's MRR reads this instead (docs/decisions.md §19).
 */
export function renewalNet(
  prices: Readonly<Record<string, number>>,
  currency: string,
  rates: ExchangeRates,
): { currency: string; netMinor: number } {
  return listPrice({ prices, currency, allowConversion: RENEWALS_CONVERT, rates });
}

/** The customer's e-mail of a paid renewal: one per payment entry, whichever path booked it. */
const renewedEmail = (t: Pick<Transaction, 'id' | 'vendorId' | 'environment'>, entryId: string): EmailEvent => ({
  kind: 'RENEWED',
  scope: { vendorId: t.vendorId, environment: t.environment },
  key: `RENEWED:${entryId}`,
  facts: { transactionId: t.id, entryId },
});

/** A row's billing state as it is, released: what a write changes nothing of until it decides otherwise. */
function stateAsIs(current: BillingState, billing: NonNullable<BillingState['billing']>): BillingWrite['state'] {
  return {
    status: current.status,
    whoCanceled: current.whoCanceled,
    lastCharge: current.lastCharge,
    nextCharge: current.nextCharge,
    period: billing.period,
    failedAttempts: billing.failedAttempts,
    leaseUntil: null,
  };
}

export function billingService(deps: BillingDeps, options: BillingOptions = {}) {
  const batchSize = options.batchSize ?? 500;
  const leaseMs = options.leaseMs ?? 120_000;
  const unknownRetryMs = options.unknownRetryMs ?? 15 * 60_000;
  const concurrency = options.gatewayConcurrency ?? 16;
  const gatewayTimeoutMs = options.gatewayTimeoutMs ?? 30_000;
  const scopeOf = (t: Pick<Transaction, 'vendorId' | 'environment'>): Scope => ({
    vendorId: t.vendorId,
    environment: t.environment,
  });

  /** In a sandbox whose clock was moved, a step happens at its scheduled moment; elsewhere, when it is done. */
  function stepTime(t: DueTransaction): Date {
    const real = deps.clock.real();
    const vendorNow = deps.clock.now(scopeOf(t));
    if (vendorNow.getTime() === real.getTime() || !t.nextCharge) return real;
    return new Date(Math.min(vendorNow.getTime(), Math.max(Date.parse(t.nextCharge), real.getTime())));
  }

  async function pricesOf(
    repos: Repositories,
    t: DueTransaction,
    cache: Map<string, Record<string, number> | undefined>,
  ) {
    const id = t.customizedProductId ?? t.productId;
    if (!cache.has(id)) {
      const scope = scopeOf(t);
      const offer = t.customizedProductId
        ? await repos.customizedProducts.find(scope, id)
        : await repos.products.find(scope, id);
      cache.set(id, offer?.prices);
    }
    return cache.get(id);
  }

  async function plan(
    repos: Repositories,
    due: DueSubscription,
    prices: Map<string, Record<string, number> | undefined>,
  ): Promise<Plan> {
    const t = due.transaction;
    const at = stepTime(t);
    if (t.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING') return { kind: 'end', due, at };
    if ((t.status !== 'SUBSCRIPTION_STATUS_ACTIVE' && t.status !== 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL') || !t.billing)
      return { kind: 'clear', due, at };
    const list = await pricesOf(repos, t, prices);
    if (!list) return { kind: 'hold', due, at, reason: `${t.id}: its product is gone` };
    try {
      // Renewals are priced by the one pricing function, in the currency and place of the purchase.
      // A business buyer's reverse charge holds for every renewal of its subscription.
      const quote = quotePrice({
        prices: list,
        currency: t.currency,
        country: t.country,
        region: t.region,
        zip: t.postalCode,
        usSalesTax: deps.usSalesTax,
        reverseCharge: t.reverseCharge,
        allowConversion: RENEWALS_CONVERT,
        rates: deps.rates,
      });
      const { period, failedAttempts, anchor } = t.billing;
      const start = periodStart(new Date(anchor), t.chargeFrequency, period).toISOString();
      return {
        kind: 'charge',
        due,
        at,
        quote,
        period,
        periodStart: start,
        key: `renewal:${t.id}:${period}:${failedAttempts}`,
      };
    } catch (err) {
      return { kind: 'hold', due, at, reason: `${t.id}: ${(err as Error).message}` };
    }
  }

  /** Asks the gateway about every attempt, a few at a time; a thrown error is an unknown outcome. */
  async function charge(
    plans: Extract<Plan, { kind: 'charge' }>[],
    attempts: Map<string, ChargeAttempt>,
  ): Promise<Map<string, ChargeResult>> {
    const results = new Map<string, ChargeResult>();
    let next = 0;
    const lane = async () => {
      while (next < plans.length) {
        const p = plans[next++]!;
        const attempt = attempts.get(p.key)!;
        const gateway = deps.gateways[p.due.transaction.environment];
        if (p.heldPayment) {
          // The payment held for authentication can no longer be completed once this try charges; if the
          // customer completed it first, it is this period's payment and nothing is charged again.
          const held = await askGateway(() => gateway.cancelPending(p.heldPayment!), gatewayTimeoutMs);
          if (held.status === 'SUCCEEDED' || held.status === 'UNKNOWN') {
            results.set(p.key, held);
            continue;
          }
        }
        const result = await askGateway(
          () =>
            gateway.charge({
              attemptId: attempt.id,
              token: p.due.token!,
              amountMinor: attempt.amountMinor,
              currency: attempt.currency,
              recordedAt: attempt.createdAt,
            }),
          gatewayTimeoutMs,
        );
        results.set(p.key, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, plans.length) }, lane));
    return results;
  }

  /** The write of one planned step, decided against the row as it is now (locked); its attempt settled at `settledAt`. */
  function resolve(
    p: Plan,
    current: BillingState,
    result: ChargeResult | undefined,
    attempt: ChargeAttempt | undefined,
    batch: { report: BillingReport; emails: EmailEvent[] | undefined; settledAt: string },
  ): BillingWrite {
    const { report, emails } = batch;
    const t = p.due.transaction;
    const at = isoString(p.at);
    const billing = current.billing ?? { anchor: at, period: 0, failedAttempts: 0 };
    const state = stateAsIs(current, billing);
    const write: BillingWrite = { transactionId: t.id, state, change: null, entry: null, attempt: null };
    // Unchanged since it was planned: nobody cancelled, refunded or billed it in between.
    const unchanged =
      current.status === t.status &&
      current.nextCharge === t.nextCharge &&
      billing.period === t.billing?.period &&
      billing.failedAttempts === t.billing?.failedAttempts;

    if (p.kind === 'hold') {
      report.errors.push(p.reason);
      state.leaseUntil = new Date(deps.clock.real().getTime() + unknownRetryMs).toISOString();
      return write;
    }
    if (p.kind === 'clear') {
      if (unchanged) state.nextCharge = null;
      return write;
    }
    if (p.kind === 'end') {
      if (unchanged) {
        Object.assign(state, { status: 'SUBSCRIPTION_STATUS_CANCELLED', nextCharge: null });
        write.change = { flag: 'CHANGED_STATUS_CANCELLED', at };
        report.ended++;
      }
      return write;
    }

    const outcome = result ?? { status: 'SUCCEEDED' as const, reference: '', feeMinor: 0 };
    if (attempt) write.attempt = { id: attempt.id, ...settledAs(outcome, attempt, batch.settledAt) };
    if (outcome.status === 'UNKNOWN') {
      // Held for a later ask while its period is still the one due; another worker may have booked it since (this one stalled past its lease).
      if (billing.period !== p.period) return write;
      report.unknown++;
      state.leaseUntil = new Date(deps.clock.real().getTime() + unknownRetryMs).toISOString();
      return write;
    }
    const samePeriod = billing.period === p.period;
    if (outcome.status === 'SUCCEEDED') {
      // Money moved for this period: the ledger records it even if the row changed meanwhile.
      if (samePeriod && attempt) {
        write.entry = paymentEntry({
          type: 'SUBSCRIPTION_PAYMENT',
          transaction: t,
          quote: p.quote,
          paid: outcome,
          provider: deps.gateways[t.environment].provider,
          at: p.at,
          periodStart: p.periodStart,
        });
        emails?.push(renewedEmail(t, write.entry.id));
      }
      const billable = BILLABLE.has(current.status);
      if (samePeriod && billable) {
        Object.assign(state, {
          status:
            current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' ? current.status : 'SUBSCRIPTION_STATUS_ACTIVE',
          lastCharge: at,
          nextCharge: periodStart(new Date(billing.anchor), current.chargeFrequency, p.period + 1).toISOString(),
          period: p.period + 1,
          failedAttempts: 0,
        });
        write.change = { flag: 'CHANGED_STATUS_RENEWED', at };
        report.renewed++;
      }
      return write;
    }
    // Declined: retried on the dunning schedule, then cancelled.
    if (!unchanged) return write;
    report.declined++;
    const failedAttempts = billing.failedAttempts + 1;
    const retry = retryAt(new Date(p.periodStart), failedAttempts);
    // The customer is told: a bank holding the payment for authentication is asked for, any other decline is a failure.
    const kind = outcome.code === 'authentication_required' ? 'ACTION_REQUIRED' : 'PAYMENT_FAILED';
    const amount = {
      currency: attempt?.currency ?? p.quote.currency,
      totalMinor: attempt?.amountMinor ?? p.quote.totalMinor,
    };
    const failure = (date: string | null): EmailEvent => ({
      kind,
      scope: scopeOf(t),
      key: `${kind}:${p.key}`,
      facts: { transactionId: t.id, date, amount },
    });
    if (retry) {
      // Tries stay at least a day apart even when a stopped worker left several overdue.
      const next = Math.max(retry.getTime(), p.at.getTime() + 86_400_000);
      Object.assign(state, { failedAttempts, nextCharge: new Date(next).toISOString() });
      emails?.push(failure(state.nextCharge));
    } else {
      emails?.push(failure(null));
      Object.assign(state, {
        status: 'SUBSCRIPTION_STATUS_CANCELLED',
        whoCanceled: 'NEXT_CHARGE_FAILED',
        nextCharge: null,
        failedAttempts,
      });
      write.change = { flag: 'CHANGED_STATUS_CANCELLED', at };
      report.failed++;
    }
    return write;
  }

  /**
   * Claims a batch, plans each step and records the charge attempts, inside the caller's database
   * transaction: when it commits, every charge about to be made is on record, and that open attempt
   * holds its row from other workers until it is settled (or `leaseMs` has passed: a crashed worker's).
   * A step that asks no gateway (an end, a free period, no stored method) is written at once, against
   * the row the claim just read and locked. Undefined when nothing is due.
   */
  async function claimAndPlan(
    repos: Repositories,
    query: Parameters<Repositories['billing']['claimDue']>[0],
    report: BillingReport,
  ) {
    const batch = await repos.billing.claimDue(query);
    if (batch.length === 0) return undefined;
    const prices = new Map<string, Record<string, number> | undefined>();
    const plans: Plan[] = [];
    for (const due of batch) plans.push(await plan(repos, due, prices));
    for (const p of plans) {
      const tries = p.kind === 'charge' ? (p.due.transaction.billing?.failedAttempts ?? 0) : 0;
      if (p.kind !== 'charge' || tries === 0) continue;
      const before = await repos.chargeAttempts.findByKey(`renewal:${p.due.transaction.id}:${p.period}:${tries - 1}`);
      if (before?.failureCode === 'authentication_required' && before.gatewayReference)
        p.heldPayment = before.gatewayReference;
    }
    // A free period needs no gateway; no stored method is a decline without one.
    const charged = (p: Plan): p is Extract<Plan, { kind: 'charge' }> =>
      p.kind === 'charge' && p.quote.totalMinor > 0 && p.due.token !== null;
    const toCharge = plans.filter(charged);
    const now = deps.clock.real();
    const recorded = toCharge.map((p) =>
      pendingAttempt({
        scope: scopeOf(p.due.transaction),
        kind: 'RENEWAL',
        key: p.key,
        transactionId: p.due.transaction.id,
        amountMinor: p.quote.totalMinor,
        currency: p.quote.currency,
        now,
        plan: {
          quote: {
            currency: p.quote.currency,
            netMinor: p.quote.netMinor,
            taxMinor: p.quote.taxMinor,
            taxRate: p.quote.taxRate,
          },
          period: p.period,
          periodStart: p.periodStart,
        } satisfies RenewalPlan,
      }),
    );
    const attempts = await repos.billing.recordAttempts(recorded);
    // Another worker that claimed the row at the same moment recorded it first and is asking now: its
    // charge, not ours. "In flight" is the claim's own test (PENDING, recorded after attemptsSince).
    const mine = new Set(recorded.map((a) => a.id));
    const inFlightElsewhere = (p: Extract<Plan, { kind: 'charge' }>) => {
      const a = attempts.get(p.key)!;
      return !mine.has(a.id) && a.status === 'PENDING' && a.createdAt > query.attemptsSince;
    };
    const withoutGateway = plans.filter((p) => !charged(p));
    if (withoutGateway.length > 0)
      await write(repos, { plans: withoutGateway, attempts: new Map(), results: new Map() }, report);
    const toAsk = toCharge.filter((p) => !inFlightElsewhere(p));
    const last = batch.at(-1)!.transaction;
    const cursor: ClaimCursor = { nextCharge: last.nextCharge!, id: last.id };
    return { toAsk, attempts, allElsewhere: toAsk.length + withoutGateway.length === 0, cursor };
  }

  /** A batch whose charges were asked: what remains is its write. */
  interface Charged {
    plans: Plan[];
    attempts: Map<string, ChargeAttempt>;
    results: Map<string, ChargeResult>;
  }

  /** Asks the gateway about a claimed batch's charges, outside any database transaction. */
  async function ask(claimed: NonNullable<Awaited<ReturnType<typeof claimAndPlan>>>): Promise<Charged> {
    const { toAsk, attempts } = claimed;
    const plans: Plan[] = [...toAsk];
    // An attempt recorded before a crash keeps its amount; a price changed since is held, not guessed.
    const charged = toAsk.filter((p) => {
      const a = attempts.get(p.key)!;
      if (a.amountMinor === p.quote.totalMinor && a.currency === p.quote.currency) return true;
      plans[plans.indexOf(p)] = {
        kind: 'hold',
        due: p.due,
        at: p.at,
        reason: `${p.due.transaction.id}: the price changed while a charge of it was in flight`,
      };
      return false;
    });
    return { plans, attempts, results: await charge(charged, attempts) };
  }

  /** Writes a charged batch's outcomes, inside the caller's database transaction, against its rows as they are now. */
  async function write(
    repos: Repositories,
    { plans, attempts, results }: Charged,
    report: BillingReport,
  ): Promise<void> {
    if (plans.length === 0) return;
    // No e-mail events are made at all while e-mails are off: this is the billing hot path.
    const emails: EmailEvent[] | undefined = deps.emails?.enabled ? [] : undefined;
    const current = await repos.billing.lockMany(plans.map((p) => p.due.transaction.id));
    const batch = { report, emails, settledAt: isoString(deps.clock.real()) };
    const writes = plans.map((p) => {
      const key = p.kind === 'charge' ? p.key : undefined;
      const result =
        key === undefined
          ? undefined
          : (results.get(key) ??
            (p.due.token === null && p.kind === 'charge' && p.quote.totalMinor > 0 ? NO_METHOD : undefined));
      return resolve(
        p,
        current.get(p.due.transaction.id)!,
        result,
        key === undefined ? undefined : attempts.get(key),
        batch,
      );
    });
    await repos.billing.apply(writes);
    if (emails) await deps.emails?.record(repos, emails);
  }

  /**
   * How the reconciler books a renewal left open when its subscription stopped being billed (it was
   * cancelled or refunded before billing asked again): the money that moved is recorded for its
   * period, once, and the vendor sees the transaction in the feed. A subscription cancelled to the end
   * of its period runs to the end of the period this payment paid for.
   */
  const orphanBooking: Booking<'RENEWAL'> = {
    async succeeded(repos, attempt, paid, at) {
      const { plan } = attempt;
      if (!plan) throw new Error(`renewal ${attempt.key} has no plan to book`);
      const id = attempt.transactionId ?? '';
      const current = (await repos.billing.lockMany([id])).get(id);
      const transaction = await repos.transactions.find(attempt.scope, id);
      if (!current || !transaction) throw new Error(`renewal ${attempt.key}: its transaction is gone`);
      if ((await repos.entries.listForTransaction(id)).some((e) => e.periodStart === plan.periodStart)) return;
      const billing = current.billing ?? { anchor: plan.periodStart, period: plan.period, failedAttempts: 0 };
      const write: BillingWrite = {
        transactionId: id,
        state: stateAsIs(current, billing),
        change: { flag: 'CHANGED_STATUS_RENEWED', at: at.toISOString() },
        attempt: null,
        entry: null,
      };
      write.entry = paymentEntry({
        type: 'SUBSCRIPTION_PAYMENT',
        transaction,
        quote: plan.quote,
        paid,
        provider: deps.gateways[attempt.scope.environment].provider,
        at,
        periodStart: plan.periodStart,
      });
      write.state.lastCharge = at.toISOString();
      await deps.emails?.record(repos, [renewedEmail(transaction, write.entry.id)]);
      if (current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING' && billing.period === plan.period) {
        Object.assign(write.state, {
          period: plan.period + 1,
          nextCharge: periodStart(new Date(billing.anchor), current.chargeFrequency, plan.period + 1).toISOString(),
        });
      }
      await repos.billing.apply([write]);
    },
  };

  return {
    /** For the reconciler: renewals whose subscription billing no longer asks about. */
    renewals: {
      booking: orphanBooking,
      /** Billing asks about this renewal again itself: its subscription is still billed. */
      async billedByBilling(attempt: AttemptOf<'RENEWAL'>): Promise<boolean> {
        const transaction = attempt.transactionId
          ? await deps.store.transactions.find(attempt.scope, attempt.transactionId)
          : undefined;
        const billed =
          transaction?.status === 'SUBSCRIPTION_STATUS_ACTIVE' ||
          transaction?.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL';
        return billed && transaction.nextCharge !== null;
      },
    },

    /**
     * A renewal the customer's bank held for authentication (3-D Secure) and the customer then
     * authenticated, from the management page or as the processor reports: its payment is booked
     * for its period, once, whichever path gets here first. A subscription cancelled for that failed
     * renewal is active again: the customer paid for the period.
     */
    async bookAuthenticated(held: ChargeAttempt, reference: string): Promise<AuthenticatedRenewal> {
      if (held.kind !== 'RENEWAL' || !held.transactionId || !held.plan) return 'NOT_PAID';
      const { plan } = held;
      const gateway = deps.gateways[held.scope.environment];
      const found = await askGateway(() => gateway.lookupCharge(held.id, reference), gatewayTimeoutMs);
      if (found.status === 'UNKNOWN') return 'PENDING';
      if (found.status !== 'SUCCEEDED') return 'NOT_PAID';
      const transactionId = held.transactionId;
      const now = deps.clock.real();
      return deps.store.transaction(async (repos) => {
        const recorded = await repos.chargeAttempts.record(
          pendingAttempt({
            scope: held.scope,
            kind: 'RENEWAL',
            key: `renewal-auth:${reference}`,
            transactionId,
            amountMinor: held.amountMinor,
            currency: held.currency,
            now,
            plan: null,
          }),
        );
        if (!recorded.fresh) return 'ALREADY_BOOKED';
        const current = (await repos.billing.lockMany([transactionId])).get(transactionId);
        const transaction = await repos.transactions.find(held.scope, transactionId);
        if (!current?.billing || !transaction)
          throw new Error(`authenticated renewal ${held.key}: transaction ${transactionId} is gone`);
        const billing = current.billing;
        const at = deps.clock.now(held.scope);
        const write: BillingWrite = {
          transactionId,
          state: stateAsIs(current, billing),
          change: null,
          entry: null,
          attempt: {
            id: recorded.attempt.id,
            status: 'SUCCEEDED',
            gatewayReference: reference,
            failureCode: null,
            updatedAt: now.toISOString(),
          },
        };
        // Another try of the same period already booked this payment (it found it completed when it went to cancel it).
        if (billing.period !== plan.period) {
          await repos.billing.apply([write]);
          return 'ALREADY_BOOKED';
        }
        write.entry = paymentEntry({
          type: 'SUBSCRIPTION_PAYMENT',
          transaction,
          quote: plan.quote,
          paid: { reference, feeMinor: found.feeMinor },
          provider: gateway.provider,
          at,
          periodStart: plan.periodStart,
        });
        const failedOut =
          current.status === 'SUBSCRIPTION_STATUS_CANCELLED' && current.whoCanceled === 'NEXT_CHARGE_FAILED';
        const billable =
          failedOut || ['SUBSCRIPTION_STATUS_ACTIVE', 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'].includes(current.status);
        if (billable) {
          Object.assign(write.state, {
            status:
              current.status === 'SUBSCRIPTION_STATUS_CANCELLED_PENDING'
                ? current.status
                : 'SUBSCRIPTION_STATUS_ACTIVE',
            whoCanceled: failedOut ? null : current.whoCanceled,
            lastCharge: at.toISOString(),
            nextCharge: periodStart(new Date(billing.anchor), current.chargeFrequency, plan.period + 1).toISOString(),
            period: plan.period + 1,
            failedAttempts: 0,
          });
          write.change = { flag: 'CHANGED_STATUS_RENEWED', at: at.toISOString() };
        }
        await repos.billing.apply([write]);
        await deps.emails?.record(repos, [renewedEmail(transaction, write.entry.id)]);
        return 'BOOKED';
      });
    },

    /**
     * Does what is due now: in every environment by real time first, then in each sandbox whose
     * clock was moved, by its own time. With `sandboxVendorId`, only that vendor's sandbox. With
     * `batchesPerClock`, each clock's turn ends after that many batches, so a sandbox catching up
     * years takes turns with real time and other vendors; `onWorkLeft` hears of each clock whose
     * turn so ended, and the next run goes on where this one stopped.
     */
    async runDue(
      only: {
        sandboxVendorId?: string;
        /** Stops after this many batches in all. */
        maxBatches?: number;
        /** Ends each clock's turn after this many batches. */
        batchesPerClock?: number;
        /** Called with each clock (undefined: real time) whose turn ended with work perhaps left. */
        onWorkLeft?: (sandboxVendorId: string | undefined) => void;
        /** Awaited between batches and between clocks: the worker lets waiting requests have the event loop and the database. */
        pause?: () => Promise<void>;
      } = {},
    ): Promise<BillingReport> {
      const report: BillingReport = {
        renewed: 0,
        declined: 0,
        ended: 0,
        failed: 0,
        unknown: 0,
        expiredOffers: 0,
        errors: [],
      };
      const clocks: { sandboxVendorId?: string; offsetMs: number }[] = only.sandboxVendorId
        ? [{ sandboxVendorId: only.sandboxVendorId, offsetMs: deps.clock.offsetOf(only.sandboxVendorId) }]
        : [
            { offsetMs: 0 },
            ...deps.clock.ahead().map(([sandboxVendorId, offsetMs]) => ({ sandboxVendorId, offsetMs })),
          ];
      let batches = 0;
      // A batch's write and the next batch's claim share one database transaction, so a batch costs
      // one commit: the write of the batch before, then the claim and the recorded attempts of this
      // one, committed before its charges are asked.
      let unwritten: Charged | undefined;
      const writeThenClaim = async (query?: Parameters<typeof claimAndPlan>[1]) => {
        const claimed = await deps.store.transaction(async (repos) => {
          if (unwritten) await write(repos, unwritten, report);
          return query && claimAndPlan(repos, query, report);
        });
        unwritten = undefined;
        return claimed;
      };
      for (const c of clocks) {
        let dueBy: string;
        let turn = 0;
        let finished = false;
        let stop = false;
        // Each claim goes on where the one before ended; once nothing is due past that, the start is
        // looked at again (rows skipped while locked, or renewed into a period that is due already),
        // and the clock is done only when nothing is due from the start.
        let after: ClaimCursor | undefined;
        for (;;) {
          const real = deps.clock.real();
          dueBy = new Date(real.getTime() + c.offsetMs).toISOString();
          const claimed = await writeThenClaim({
            dueBy,
            sandboxVendorId: c.sandboxVendorId,
            now: real.toISOString(),
            attemptsSince: new Date(real.getTime() - leaseMs).toISOString(),
            limit: batchSize,
            after,
          });
          if (!claimed && after) {
            after = undefined;
            continue;
          }
          if (!claimed) {
            finished = true;
            break;
          }
          after = claimed.cursor;
          // Every row claimed was in flight at another worker (a claim at the same instant as its own):
          // this clock's turn ends rather than claim them again before that worker's attempts are visible.
          if (claimed.allElsewhere) break;
          unwritten = await ask(claimed);
          if (only.maxBatches !== undefined && ++batches >= only.maxBatches) {
            stop = true;
            break;
          }
          if (only.batchesPerClock !== undefined && ++turn >= only.batchesPerClock) break;
          await only.pause?.();
        }
        if (unwritten) await writeThenClaim();
        if (stop) return report;
        // A clock whose turn ended with work left expires its offers once it has caught up.
        if (finished) report.expiredOffers += await deps.store.billing.expireOffers(dueBy, c.sandboxVendorId);
        else only.onWorkLeft?.(c.sandboxVendorId);
        await only.pause?.();
      }
      return report;
    },
  };
}

export type BillingService = ReturnType<typeof billingService>;
