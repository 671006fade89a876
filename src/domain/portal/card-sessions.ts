import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidState } from '../errors.ts';
import type { Environment, Scope } from '../model.ts';
import { canUpdateCard, saveCard, type CardUpdate } from './card-change.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

/** A card change in the processor's element: the customer confirms it with `clientSecret`, then the page sends back `cardSession`. */
export interface CardSession {
  clientSecret: string;
  /** Signed: binds the session to this customer's transaction, so nobody else can finish it. */
  cardSession: string;
}

/** A card setup the processor has not settled yet (the customer's bank is still at it). */
export type CardCompletion = CardUpdate | { status: 'PENDING' };

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

const sign = (secret: string, body: string) =>
  createHmac('sha256', `${secret}:card-session`).update(body).digest('base64url');

function readCardSession(secret: string, token: string): CardSessionClaims | undefined {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CardSessionClaims;
  } catch {
    return undefined;
  }
}

/**
 * Starts a card change in the processor's element (`browser` card entry): a setup session that
 * saves a card and charges nothing. The customer confirms it in the browser and sends back the
 * signed `cardSession`, which only finishes this session for this transaction of this customer.
 */
export async function startCardSession(
  deps: PortalDeps,
  scope: Scope,
  email: string,
  id: string,
): Promise<CardSession | { status: 'DECLINED'; message: string }> {
  const transaction = await ownTransaction(deps, scope, email, id);
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
  return { clientSecret: started.clientSecret, cardSession: `${body}.${sign(deps.secret, body)}` };
}

/**
 * Finishes a card change the customer confirmed in the processor's element: the processor says
 * which card the session saved, and it is saved as `updateCard` saves one (same dunning).
 */
export async function completeCardSession(
  deps: PortalDeps,
  scope: Scope,
  email: string,
  id: string,
  cardSession: string,
): Promise<CardCompletion> {
  const claims = readCardSession(deps.secret, cardSession);
  const mismatch =
    !claims ||
    claims.vendorId !== scope.vendorId ||
    claims.environment !== scope.environment ||
    claims.email !== email.toLowerCase() ||
    claims.transactionId !== id ||
    typeof claims.reference !== 'string';
  if (mismatch)
    throw invalidState('The card was not saved: its session belongs to another page. Reload the page and try again.');
  if (claims.expiresAt * 1000 <= deps.clock.now().getTime())
    throw invalidState('The card was not saved in time. Reload the page and try again.');
  const transaction = await ownTransaction(deps, scope, email, id);
  if (!canUpdateCard(transaction))
    throw invalidState(`The card of this purchase cannot be changed: it is ${transaction.status}.`);
  const gateway = deps.gateways[scope.environment];
  const found = await gateway.lookupCharge('', claims.reference);
  if (found.status === 'UNKNOWN') return { status: 'PENDING' };
  if (found.status === 'DECLINED') return { status: 'DECLINED', message: found.message };
  if (found.status !== 'SUCCEEDED' || !found.method)
    return { status: 'DECLINED', message: 'The card was not saved; try again.' };
  return saveCard(deps, scope, id, gateway.provider, found.method);
}
