import { pauseStateOf, prorate } from '../billing/index.ts';
import { isUpgrade, type PurchaseResult } from '../checkout/index.ts';
import { AppError } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import { ownTransaction } from './own-transactions.ts';
import type { PortalDeps } from './portal-deps.ts';

/** A plan the customer may switch to: its price for them, and when it would start and first charge. */
export interface SwitchOption {
  productId: string;
  name: string;
  chargeFrequency: Transaction['chargeFrequency'];
  currency: string;
  totalMinor: number;
  /** An upgrade starts now; a downgrade when the paid period ends. */
  upgrade: boolean;
  startsAt: string;
  firstCharge: string;
}

/** Only an active subscription (not in trial, not cancelled) changes its plan, as a migration requires. */
export const canSwitchPlan = (t: Transaction) => t.type === 'SUBSCRIPTION' && t.status === 'SUBSCRIPTION_STATUS_ACTIVE';

/**
 * The plans the vendor lets this subscription's customers switch to (the product's setting in the
 * panel), each priced as its checkout would price it for them, in their currency and with their
 * business details, and prorated as the switch will be (docs/decisions.md §34). Archived products,
 * non-subscriptions and the current plan are left out.
 */
export async function switchOptions(
  deps: Pick<PortalDeps, 'store' | 'clock' | 'purchases'>,
  scope: Scope,
  email: string,
  id: string,
): Promise<{ transaction: Transaction; options: SwitchOption[] }> {
  const transaction = await ownTransaction(deps, scope, email, id);
  if (!canSwitchPlan(transaction)) return { transaction, options: [] };
  // A paused subscription has no period to prorate against: resumed first (docs/decisions.md §41).
  if (pauseStateOf(transaction, deps.clock.now(scope)) !== 'none') return { transaction, options: [] };
  const now = deps.clock.now(scope);
  const options: SwitchOption[] = [];
  for (const productId of await deps.store.portal.switchesOf(scope, transaction.productId)) {
    const product = await deps.store.products.find(scope, productId);
    if (!product || product.archivedAt || product.type !== 'SUBSCRIPTION' || product.id === transaction.productId)
      continue;
    const { quote } = await deps.purchases.quote(
      scope,
      product.id,
      {
        country: transaction.country,
        region: transaction.region,
        zip: transaction.postalCode,
        currency: transaction.currency,
      },
      undefined,
      transaction.buyerVatId ?? undefined,
    );
    const next = { netUsdMinor: quote.netUsdMinor, chargeFrequency: product.chargeFrequency };
    const upgrade = isUpgrade(transaction, next);
    const startsAt = upgrade ? now : new Date(transaction.nextCharge ?? now.toISOString());
    options.push({
      productId: product.id,
      name: product.name,
      chargeFrequency: product.chargeFrequency,
      currency: quote.currency,
      totalMinor: quote.totalMinor,
      upgrade,
      startsAt: startsAt.toISOString(),
      firstCharge: prorate(transaction, next, startsAt).firstCharge.toISOString(),
    });
  }
  return { transaction, options };
}

/**
 * Switches the customer's subscription to a plan the vendor allows: an upgrade now with proration,
 * a downgrade at the end of the paid period, both through the purchase's migration. Retried, it
 * answers what the first did.
 */
export async function switchPlan(
  deps: Pick<PortalDeps, 'store' | 'clock' | 'purchases'>,
  scope: Scope,
  email: string,
  id: string,
  productId: string,
): Promise<PurchaseResult> {
  const { transaction, options } = await switchOptions(deps, scope, email, id);
  const option = options.find((o) => o.productId === productId);
  if (!option) {
    // Sent again after it was done: the switch's own attempt answers (a retry sees what the first did),
    // or, with none, the migration refuses a subscription that is no longer active.
    if (!canSwitchPlan(transaction))
      return deps.purchases.switchPlan(scope, { oldId: id, productId, email, atPeriodEnd: false });
    throw new AppError('INVALID_INPUT', 'That plan is not one this subscription can switch to.');
  }
  return deps.purchases.switchPlan(scope, { oldId: id, productId, email, atPeriodEnd: !option.upgrade });
}
