import type { Scope, Transaction } from '../model.ts';
import { paymentEntry, vendorFeeTerms, type Booking, type PurchasePlan } from '../payments/index.ts';
import type { AttemptOf, Repositories } from '../ports.ts';
import { releaseRedemption, useRedemption } from './coupon-redemptions.ts';
import type { PurchaseDeps } from './purchase-request.ts';
import { endReplaced } from './subscription-migration.ts';

type Paid = Parameters<Booking<'PURCHASE'>['succeeded']>[2];

/**
 * Books a purchase whose charge succeeded (or that charges nothing now): customer, stored method,
 * transaction, ledger entry and licence, in the settling database transaction.
 */
export function purchaseBooking(deps: PurchaseDeps): Booking<'PURCHASE'> {
  return {
    succeeded: async (repos, attempt, paid, at) => {
      await useRedemption(repos, attempt, at);
      await bookPurchase(deps, repos, attempt, paid);
    },
    // A failed payment gives its coupon's redemption back (docs/decisions.md §38).
    declined: (repos, attempt, _decline, at) => releaseRedemption(repos, attempt, at),
    voided: (repos, attempt, at) => releaseRedemption(repos, attempt, at),
  };
}

async function bookPurchase(
  deps: PurchaseDeps,
  repos: Repositories,
  attempt: AttemptOf<'PURCHASE'>,
  paid: Paid,
): Promise<void> {
  const { plan } = attempt;
  const transaction = { ...plan.transaction };
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
  if (plan.migration) await endReplaced(repos, scope, plan.migration, transaction.createdAt);
  await repos.transactions.insert(transaction);
  const entryId = plan.charged ? await bookPayment(deps, repos, plan, transaction, paid) : undefined;
  if (plan.licence) await bookLicence(repos, scope, plan, transaction);
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
}

/**
 * The purchase's licence key. The same product going on (a seat change) keeps the key it replaces, with
 * its activations, whose limit is then the new seats (docs/decisions.md §39); else a new key.
 */
async function bookLicence(repos: Repositories, scope: Scope, plan: PurchasePlan, transaction: Transaction) {
  const from = plan.migration?.keepsLicence ? plan.migration.oldId : null;
  if (from && (await repos.licences.carryOver(scope, from, transaction.id))) return;
  await repos.licences.insert({
    id: plan.licenceId,
    scope,
    productId: transaction.productId,
    transactionId: transaction.id,
    key: plan.licence!,
    createdAt: transaction.createdAt,
  });
}

/** The purchase's payment in the ledger; its id, for the receipt. */
async function bookPayment(
  deps: PurchaseDeps,
  repos: Repositories,
  plan: PurchasePlan,
  transaction: Transaction,
  paid: Paid,
): Promise<string> {
  const entry = paymentEntry({
    type: paymentEntryType(transaction.type),
    transaction,
    quote: plan.quote,
    paid,
    provider: plan.provider,
    fee: await vendorFeeTerms(repos, transaction.vendorId, deps),
    at: new Date(transaction.createdAt),
    periodStart: transaction.type === 'SUBSCRIPTION' ? transaction.createdAt : null,
  });
  await repos.entries.insert(entry);
  return entry.id;
}

/** The ledger entry type of a purchase's payment. */
function paymentEntryType(type: Transaction['type']): Parameters<typeof paymentEntry>[0]['type'] {
  if (type === 'ONETIME') return 'ONETIME_PAYMENT';
  if (type === 'SUBSCRIPTION') return 'SUBSCRIPTION_PAYMENT';
  return 'VAULTED_PAYMENT';
}
