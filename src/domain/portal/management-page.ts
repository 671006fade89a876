import type { LedgerEntry, PaymentMethod, Scope, Transaction } from '../model.ts';
import type { PortalDeps } from './portal-deps.ts';
import { canSwitchPlan } from './plan-switch.ts';
import { licenceUseOf, type LicenceUse } from './licence-instances.ts';
import { awaiting, type AwaitingAuthentication } from './renewal-authentication.ts';
import { pauseOffer, type PauseOffer } from './pause-offer.ts';
import { seatOffer, type SeatOffer } from './seat-offer.ts';

export interface PortalItem {
  transaction: Transaction;
  /** Payments and refunds, oldest first: each has an invoice or credit note. */
  entries: LedgerEntry[];
  licence: string | null;
  /** Where the licence key is activated; the customer may free any of them (docs/decisions.md §40). */
  licenceUse?: LicenceUse | null | undefined;
  card: Pick<PaymentMethod, 'brand' | 'last4' | 'expMonth' | 'expYear' | 'type' | 'wallet'> | null;
  /** The renewal of the current period awaiting the customer's authentication, if any. */
  awaitingAuthentication: AwaitingAuthentication | null;
  /** An active subscription whose product the vendor lets its customers switch from (docs/decisions.md §34). */
  canSwitch: boolean;
  /** A subscription's pause, and whether the customer may pause it (docs/decisions.md §41). */
  pause?: PauseOffer | null | undefined;
  /** A per-seat subscription's seats, where the vendor lets the customer change them (docs/decisions.md §39). */
  seats?: SeatOffer | null | undefined;
}

/** What the management page shows: each of the customer's transactions with its invoices, licence, card and held renewal. */
export async function overview(
  deps: Pick<PortalDeps, 'store' | 'clock'>,
  scope: Scope,
  email: string,
): Promise<PortalItem[]> {
  const transactions = await deps.store.transactions.listByEmail(scope, email);
  return Promise.all(
    transactions.map(async (transaction) => {
      const method = transaction.paymentMethodId
        ? await deps.store.paymentMethods.find(transaction.paymentMethodId)
        : undefined;
      const held = await awaiting(deps, transaction);
      return {
        transaction,
        entries: (await deps.store.entries.listForTransaction(transaction.id)).filter((e) => e.invoiceNumber != null),
        licence: (await deps.store.licences.keyOf(scope, transaction.id)) ?? null,
        licenceUse: await licenceUseOf(deps, scope, transaction),
        card: method
          ? {
              brand: method.brand,
              last4: method.last4,
              expMonth: method.expMonth,
              expYear: method.expYear,
              type: method.type,
              wallet: method.wallet,
            }
          : null,
        awaitingAuthentication: held
          ? { amountMinor: held.attempt.amountMinor, currency: held.attempt.currency }
          : null,
        canSwitch:
          canSwitchPlan(transaction) && (await deps.store.portal.switchesOf(scope, transaction.productId)).length > 0,
        pause: await pauseOffer(deps, scope, transaction),
        seats: await seatOffer(deps, scope, transaction),
      };
    }),
  );
}
