import { prorate } from '../billing/index.ts';
import { AppError, invalidState } from '../errors.ts';
import type { Scope, Transaction } from '../model.ts';
import type { PurchasePlan } from '../payments/index.ts';
import type { Repositories } from '../ports.ts';
import type { PurchaseDeps } from './purchase-request.ts';

/**
 * An upgrade or downgrade: a purchase that replaces an active subscription of the same buyer. It is
 * checked and prorated when priced, and the old subscription ends when the new one is booked.
 */
export type Migration = Awaited<ReturnType<typeof migrationOf>>;

/** The subscription a migration replaces, checked, with its proration. */
export async function migrationOf(
  deps: Pick<PurchaseDeps, 'store'>,
  scope: Scope,
  oldId: string,
  email: string,
  newNetUsdMinor: number,
  frequency: Transaction['chargeFrequency'],
  now: Date,
  atPeriodEnd = false,
) {
  const old = await deps.store.transactions.find(scope, oldId);
  if (!old || old.type !== 'SUBSCRIPTION' || old.status !== 'SUBSCRIPTION_STATUS_ACTIVE') {
    throw invalidState(
      `This upgrade link replaces subscription ${oldId}, which is ${old ? old.status : 'gone'}; ask the seller for a new link.`,
    );
  }
  const owner = [old.email, old.assignedEmail].filter(Boolean).map((e) => e!.toLowerCase());
  if (!owner.includes(email.toLowerCase()))
    throw new AppError('INVALID_INPUT', 'This upgrade link is for the e-mail address of the subscription it replaces.');
  // A downgrade starts when the paid period ends: prorated then, nothing is left and it is charged from then on.
  const from = atPeriodEnd && old.nextCharge ? new Date(old.nextCharge) : now;
  return {
    old,
    atPeriodEnd,
    proration: prorate(old, { netUsdMinor: newNetUsdMinor, chargeFrequency: frequency }, from),
  };
}

/** Ends the old subscription in the booking's database transaction, if it is still as priced. */
export async function endReplaced(
  repos: Repositories,
  scope: Scope,
  migration: NonNullable<PurchasePlan['migration']>,
  at: string,
): Promise<void> {
  const current = await repos.transactions.lock(scope, migration.oldId);
  if (!current || current.status !== 'SUBSCRIPTION_STATUS_ACTIVE' || current.nextCharge !== migration.oldNextCharge) {
    throw invalidState(
      `Subscription ${migration.oldId} changed (now ${current?.status ?? 'gone'}); ask the seller for a new upgrade link.`,
    );
  }
  const who = migration.who ?? 'VENDOR';
  await repos.transactions.update(
    scope,
    current.id,
    // A downgrade leaves the old plan to run out its paid period, charging nothing more.
    migration.atPeriodEnd
      ? { status: 'SUBSCRIPTION_STATUS_CANCELLED_PENDING', whoCanceled: who }
      : { status: 'SUBSCRIPTION_STATUS_CANCELLED', whoCanceled: who, nextCharge: null },
    { flag: 'CHANGED_STATUS_CANCELLED', at },
  );
}
