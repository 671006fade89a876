import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthenticatedRenewal, BillingService } from '../billing/index.ts';
import type { Clock } from '../clock.ts';
import { invalidState, notFound } from '../errors.ts';
import type { CardInput, PaymentGateway, TokenizedCard } from '../payments/index.ts';
import { newId } from '../ids.ts';
import type { Environment, LedgerEntry, PaymentMethod, Scope, Transaction } from '../model.ts';
import type { ChargeAttempt, Store } from '../ports.ts';
import type { TransactionService } from '../checkout/index.ts';
import { requireCardExpiry } from '../validation.ts';

/**
 * What a customer can see and do on the management page of one vendor: their transactions with
 * their invoices, licence keys and saved cards; cancel a subscription (whoCanceled CUSTOMER);
 * replace the card of a subscription or vaulted method (in opentill's card form, or in the
 * processor's element through a card setup session); confirm a renewal their bank held for
 * authentication (3-D Secure). Only the customer's own transactions: anything else is "not found".
 */
export interface PortalDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  transactions: Pick<TransactionService, 'cancel'>;
  billing: Pick<BillingService, 'bookAuthenticated'>;
  /** The server secret: signs the card setup sessions the page hands to the browser. */
  secret: string;
}

/** A renewal the customer's bank holds until the customer confirms it (3-D Secure). */
export interface AwaitingAuthentication {
  amountMinor: number;
  currency: string;
}

export interface PortalItem {
  transaction: Transaction;
  /** Payments and refunds, oldest first: each has an invoice or credit note. */
  entries: LedgerEntry[];
  licence: string | null;
  card: Pick<PaymentMethod, 'brand' | 'last4' | 'expMonth' | 'expYear'> | null;
  /** The renewal of the current period awaiting the customer's authentication, if any. */
  awaitingAuthentication: AwaitingAuthentication | null;
}

export type CardUpdate = { status: 'UPDATED'; transaction: Transaction } | { status: 'DECLINED'; message: string };

/** A card change in the processor's element: the customer confirms it with `clientSecret`, then the page sends back `cardSession`. */
export interface CardSession {
  clientSecret: string;
  /** Signed: binds the session to this customer's transaction, so nobody else can finish it. */
  cardSession: string;
}

/** A card setup the processor has not settled yet (the customer's bank is still at it). */
export type CardCompletion = CardUpdate | { status: 'PENDING' };

/** What confirming a held renewal came to: booked now or before, still on its way, or not paid (the customer did not complete it). */
export type Authentication = AuthenticatedRenewal;

const CANCELLABLE: Transaction['status'][] = [
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'VAULTED_STATUS_ACTIVE',
];
const CARD_IN_USE: Transaction['status'][] = [
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'VAULTED_STATUS_ACTIVE',
];

export const canCancel = (t: Transaction) => CANCELLABLE.includes(t.status);
export const canUpdateCard = (t: Transaction) => CARD_IN_USE.includes(t.status);

/** A card setup session is finished within this time of its start, or started again. */
const CARD_SESSION_SECONDS = 3600;

interface CardSessionClaims {
  vendorId: string;
  environment: Environment;
  email: string;
  transactionId: string;
  reference: string;
  expiresAt: number;
}

/** A renewal attempt the bank held for authentication, and the period it pays for. */
const heldFor = (
  attempt: ChargeAttempt | undefined,
): { attempt: ChargeAttempt; reference: string; period: number | null } | undefined => {
  if (
    !attempt ||
    attempt.status !== 'DECLINED' ||
    attempt.failureCode !== 'authentication_required' ||
    attempt.gatewayReference === null
  )
    return undefined;
  const period = attempt.kind === 'RENEWAL' && attempt.plan ? attempt.plan.period : null;
  return { attempt, reference: attempt.gatewayReference, period };
};

export function customerPortalService(deps: PortalDeps) {
  const sign = (body: string) => createHmac('sha256', `${deps.secret}:card-session`).update(body).digest('base64url');

  async function ownTransaction(scope: Scope, email: string, id: string): Promise<Transaction> {
    const transaction = await deps.store.transactions.find(scope, id);
    const owner = [transaction?.email, transaction?.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
    if (!transaction || !owner.includes(email.toLowerCase())) throw notFound(`Transaction ${id}`);
    return transaction;
  }

  /**
   * The renewal of the subscription's current period that the bank holds for the customer's
   * authentication: the latest renewal attempt was held (not retried, cancelled or booked since)
   * and the subscription is still active in that period.
   */
  async function awaiting(transaction: Transaction) {
    if (
      transaction.type !== 'SUBSCRIPTION' ||
      transaction.status !== 'SUBSCRIPTION_STATUS_ACTIVE' ||
      !transaction.billing
    )
      return undefined;
    const held = heldFor(await deps.store.chargeAttempts.latestFor(transaction.id, 'RENEWAL'));
    return held && held.period === transaction.billing.period ? held : undefined;
  }

  /** Saves a card the gateway vouched for as the transaction's; a renewal declined before is retried with it at once. */
  async function saveCard(scope: Scope, id: string, provider: string, card: TokenizedCard): Promise<CardUpdate> {
    const now = deps.clock.now(scope);
    return deps.store.transaction(async (repos) => {
      const transaction = await repos.transactions.lock(scope, id);
      if (!transaction || !canUpdateCard(transaction))
        throw invalidState(`The card of this purchase cannot be changed: it is ${transaction?.status ?? 'gone'}.`);
      const current = transaction.paymentMethodId
        ? await repos.paymentMethods.find(transaction.paymentMethodId)
        : undefined;
      // The same card sent back twice (a reload, a second click) is saved once.
      if (current?.token === card.token) return { status: 'UPDATED', transaction };
      const methodId = newId('paymentMethod', now.getTime());
      await repos.paymentMethods.insert(
        scope,
        transaction.customerId,
        provider,
        { id: methodId, ...card },
        now.toISOString(),
      );
      const inDunning = (transaction.billing?.failedAttempts ?? 0) > 0 && transaction.nextCharge !== null;
      const patch = { paymentMethodId: methodId, ...(inDunning ? { nextCharge: now.toISOString() } : {}) };
      await repos.transactions.update(scope, id, patch);
      return { status: 'UPDATED', transaction: { ...transaction, ...patch } };
    });
  }

  function readCardSession(token: string): CardSessionClaims | undefined {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CardSessionClaims;
    } catch {
      return undefined;
    }
  }

  return {
    async overview(scope: Scope, email: string): Promise<PortalItem[]> {
      const transactions = await deps.store.transactions.listByEmail(scope, email);
      return Promise.all(
        transactions.map(async (transaction) => {
          const method = transaction.paymentMethodId
            ? await deps.store.paymentMethods.find(transaction.paymentMethodId)
            : undefined;
          const held = await awaiting(transaction);
          return {
            transaction,
            entries: (await deps.store.entries.listForTransaction(transaction.id)).filter(
              (e) => e.invoiceNumber != null,
            ),
            licence: (await deps.store.licences.keyOf(scope, transaction.id)) ?? null,
            card: method
              ? { brand: method.brand, last4: method.last4, expMonth: method.expMonth, expYear: method.expYear }
              : null,
            awaitingAuthentication: held
              ? { amountMinor: held.attempt.amountMinor, currency: held.attempt.currency }
              : null,
          };
        }),
      );
    },

    async cancel(scope: Scope, email: string, id: string) {
      await ownTransaction(scope, email, id);
      return deps.transactions.cancel(scope, id, 'CUSTOMER');
    },

    /**
     * Saves a new card for a subscription or vaulted method. A subscription whose renewal was
     * declined is retried with it at the worker's next run instead of waiting for the next retry date.
     */
    async updateCard(scope: Scope, email: string, id: string, card: CardInput): Promise<CardUpdate> {
      const current = await ownTransaction(scope, email, id);
      if (!canUpdateCard(current))
        throw invalidState(`The card of this purchase cannot be changed: it is ${current.status}.`);
      requireCardExpiry(card);
      const gateway = deps.gateways[scope.environment];
      const tokenized = await gateway.tokenize(card, deps.clock.now(scope));
      if (tokenized.status !== 'OK') return { status: 'DECLINED', message: tokenized.message };
      return saveCard(scope, id, gateway.provider, tokenized.card);
    },

    /**
     * Starts a card change in the processor's element (`browser` card entry): a setup session that
     * saves a card and charges nothing. The customer confirms it in the browser and sends back the
     * signed `cardSession`, which only finishes this session for this transaction of this customer.
     */
    async startCardSession(
      scope: Scope,
      email: string,
      id: string,
    ): Promise<CardSession | { status: 'DECLINED'; message: string }> {
      const transaction = await ownTransaction(scope, email, id);
      if (!canUpdateCard(transaction))
        throw invalidState(`The card of this purchase cannot be changed: it is ${transaction.status}.`);
      const gateway = deps.gateways[scope.environment];
      if (gateway.cardEntry.kind !== 'browser') throw invalidState('This page takes the card in its own form.');
      const started = await gateway.startSession({
        attemptId: `card:${randomBytes(12).toString('base64url')}`,
        amountMinor: 0,
        currency: transaction.currency,
        saveForLater: true,
        scope: { vendorId: scope.vendorId, environment: scope.environment },
        customer: { email: email.toLowerCase(), name: null, reference: null },
        // The processor keeps the new card with the customer it keeps the current one with, instead of making another.
        replacesCard: transaction.paymentMethodId
          ? (await deps.store.paymentMethods.find(transaction.paymentMethodId))?.token
          : undefined,
        description: `New card for ${transaction.productName}`,
      });
      if (started.status !== 'OPEN') return { status: 'DECLINED', message: started.message };
      const claims: CardSessionClaims = {
        vendorId: scope.vendorId,
        environment: scope.environment,
        email: email.toLowerCase(),
        transactionId: id,
        reference: started.reference,
        expiresAt: Math.floor(deps.clock.now().getTime() / 1000) + CARD_SESSION_SECONDS,
      };
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return { clientSecret: started.clientSecret, cardSession: `${body}.${sign(body)}` };
    },

    /**
     * Finishes a card change the customer confirmed in the processor's element: the processor says
     * which card the session saved, and it is saved as `updateCard` saves one (same dunning).
     */
    async completeCardSession(scope: Scope, email: string, id: string, cardSession: string): Promise<CardCompletion> {
      const claims = readCardSession(cardSession);
      const mismatch =
        !claims ||
        claims.vendorId !== scope.vendorId ||
        claims.environment !== scope.environment ||
        claims.email !== email.toLowerCase() ||
        claims.transactionId !== id ||
        typeof claims.reference !== 'string';
      if (mismatch)
        throw invalidState(
          'The card was not saved: its session belongs to another page. Reload the page and try again.',
        );
      if (claims.expiresAt * 1000 <= deps.clock.now().getTime())
        throw invalidState('The card was not saved in time. Reload the page and try again.');
      const transaction = await ownTransaction(scope, email, id);
      if (!canUpdateCard(transaction))
        throw invalidState(`The card of this purchase cannot be changed: it is ${transaction.status}.`);
      const gateway = deps.gateways[scope.environment];
      const found = await gateway.lookupCharge('', claims.reference);
      if (found.status === 'UNKNOWN') return { status: 'PENDING' };
      if (found.status === 'DECLINED') return { status: 'DECLINED', message: found.message };
      if (found.status !== 'SUCCEEDED' || !found.method)
        return { status: 'DECLINED', message: 'The card was not saved; try again.' };
      return saveCard(scope, id, gateway.provider, found.method);
    },

    /** What the browser needs to let the customer confirm the held renewal of their subscription. */
    async authenticationSession(
      scope: Scope,
      email: string,
      id: string,
    ): Promise<{ clientSecret: string; paymentMethod: string | null }> {
      const held = await awaiting(await ownTransaction(scope, email, id));
      if (!held) throw invalidState('There is no payment of this purchase to confirm.');
      const session = await deps.gateways[scope.environment].authenticationSession(held.reference);
      if (!session)
        throw invalidState('This payment can no longer be confirmed here; it will be tried again on its own.');
      return { clientSecret: session.clientSecret, paymentMethod: session.method };
    },

    /**
     * The customer confirmed the held renewal in the browser: it is booked for its period, once,
     * whether this, a second click or the processor's event gets there first.
     */
    async authenticated(scope: Scope, email: string, id: string): Promise<Authentication> {
      await ownTransaction(scope, email, id);
      const latest = await deps.store.chargeAttempts.latestFor(id, 'RENEWAL');
      const held = heldFor(latest);
      if (!held) return latest?.status === 'SUCCEEDED' ? 'ALREADY_BOOKED' : 'NOT_PAID';
      // Still waiting for the customer: nothing to book, and the held payment is left as it is.
      if (await deps.gateways[scope.environment].authenticationSession(held.reference)) return 'NOT_PAID';
      return deps.billing.bookAuthenticated(held.attempt, held.reference);
    },
  };
}

export type CustomerPortalService = ReturnType<typeof customerPortalService>;
