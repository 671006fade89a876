import { invalidState } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Scope, Transaction } from '../model.ts';
import type { CardInput, TokenizedCard } from '../payments/index.ts';
import { requireCardExpiry } from '../validation.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

export type CardUpdate = { status: 'UPDATED'; transaction: Transaction } | { status: 'DECLINED'; message: string };

const CARD_IN_USE: Transaction['status'][] = [
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'VAULTED_STATUS_ACTIVE',
];

export const canUpdateCard = (t: Transaction) => CARD_IN_USE.includes(t.status);

/** Saves a card the gateway vouched for as the transaction's; a renewal declined before is retried with it at once. */
export async function saveCard(
  deps: Pick<PortalDeps, 'store' | 'clock'>,
  scope: Scope,
  id: string,
  provider: string,
  card: TokenizedCard,
): Promise<CardUpdate> {
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

/**
 * Saves a new card for a subscription or vaulted method. A subscription whose renewal was
 * declined is retried with it at the worker's next run instead of waiting for the next retry date.
 */
export async function updateCard(
  deps: PortalDeps,
  scope: Scope,
  email: string,
  id: string,
  card: CardInput,
): Promise<CardUpdate> {
  const current = await ownTransaction(deps, scope, email, id);
  if (!canUpdateCard(current))
    throw invalidState(`The card of this purchase cannot be changed: it is ${current.status}.`);
  requireCardExpiry(card);
  const gateway = deps.gateways[scope.environment];
  const tokenized = await gateway.tokenize(card, deps.clock.now(scope));
  if (tokenized.status !== 'OK') return { status: 'DECLINED', message: tokenized.message };
  return saveCard(deps, scope, id, gateway.provider, tokenized.card);
}
