import type Stripe from 'stripe';
import type {
  ActivityPeriod,
  ProcessorBooks,
  ProcessorItem,
  ProcessorItemKind,
  ProcessorPayout,
} from '../domain/payments/index.ts';
import { idOf } from './stripe-ids.ts';
import { feeInPaymentCurrency } from './stripe-outcomes.ts';

/*
 * Stripe's balance, read for reconciliation (docs/decisions.md §25): the balance transactions of a period,
 * each with its source expanded (the charge, refund or dispute it moved money for), put in the ledger's
 * terms; and the payouts of a period, each with the sum of the transactions it paid out. Every list is
 * paged through with the SDK's auto-pagination (`starting_after` the last id of each page).
 */

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
const created = (period: ActivityPeriod) => ({ gte: seconds(period.from), lt: seconds(period.to) });

/** What a balance transaction is for the ledger, by Stripe's reporting category (a dispute is an `adjustment` by type). */
const KINDS: Record<string, ProcessorItemKind> = {
  charge: 'payment',
  refund: 'refund',
  refund_failure: 'refund_failed',
  dispute: 'chargeback',
  dispute_reversal: 'chargeback_won',
  payout: 'payout',
};

type Source = { id: string; object?: string; amount?: number; currency?: string } & Record<string, unknown>;

/** The ledger's id for the item, and its amount in the payment's currency as it moved the balance. */
function inLedgerTerms(
  kind: ProcessorItemKind,
  source: Source | null,
): { reference: string; amount: number; currency: string } | undefined {
  if (!source || source.amount === undefined || source.currency === undefined) return undefined;
  const { id, amount, currency } = source;
  switch (kind) {
    case 'payment':
      return { reference: idOf(source.payment_intent as string | { id: string } | null) ?? id, amount, currency };
    case 'refund':
      return { reference: id, amount: -amount, currency };
    case 'refund_failed':
      return { reference: `${id}:failed`, amount, currency };
    case 'chargeback':
      return { reference: id, amount: -amount, currency };
    case 'chargeback_won':
      return { reference: `${id}:won`, amount, currency };
    default:
      return undefined;
  }
}

/** A balance transaction (its source expanded) in the ledger's terms. */
export function itemOf(txn: Stripe.BalanceTransaction): ProcessorItem {
  let kind = KINDS[txn.reporting_category] ?? 'other';
  const source = txn.source && typeof txn.source === 'object' ? (txn.source as unknown as Source) : null;
  const terms = inLedgerTerms(kind, source);
  // A movement of a kind the ledger books, whose source does not say what it was for, is shown as it is.
  if (!terms && kind !== 'payout') kind = 'other';
  const currency = terms?.currency ?? txn.currency;
  return {
    id: txn.id,
    kind,
    reference: terms?.reference ?? idOf(txn.source as string | { id: string } | null) ?? txn.id,
    label: txn.type === txn.reporting_category ? txn.type : `${txn.type}/${txn.reporting_category}`,
    createdAt: iso(txn.created),
    amountMinor: terms?.amount ?? txn.amount,
    currency: currency.toUpperCase(),
    feeMinor: feeInPaymentCurrency(txn, currency),
    balance: {
      currency: txn.currency.toUpperCase(),
      amountMinor: txn.amount,
      feeMinor: txn.fee,
      netMinor: txn.net,
    },
    ...(kind === 'refund' ? { undone: source?.status === 'failed' || source?.status === 'canceled' } : {}),
  };
}

async function items(stripe: Stripe, period: ActivityPeriod, pageSize: number): Promise<ProcessorItem[]> {
  const out: ProcessorItem[] = [];
  for await (const txn of stripe.balanceTransactions.list({
    created: created(period),
    limit: pageSize,
    expand: ['data.source'],
  }))
    out.push(itemOf(txn));
  return out;
}

/** What a payout paid out: the nets of its transactions (its own left out); Stripe lists them only for automatic payouts it has reconciled. */
async function paidOut(stripe: Stripe, payout: Stripe.Payout, pageSize: number) {
  if (!payout.automatic || payout.reconciliation_status !== 'completed') return null;
  let netMinor = 0;
  let count = 0;
  for await (const txn of stripe.balanceTransactions.list({ payout: payout.id, limit: pageSize })) {
    if (txn.type === 'payout' && idOf(txn.source as string | { id: string } | null) === payout.id) continue;
    netMinor += txn.net;
    count += 1;
  }
  return { netMinor, count };
}

async function payouts(stripe: Stripe, period: ActivityPeriod, pageSize: number): Promise<ProcessorPayout[]> {
  const out: ProcessorPayout[] = [];
  for await (const payout of stripe.payouts.list({ created: created(period), limit: pageSize })) {
    out.push({
      id: payout.id,
      createdAt: iso(payout.created),
      arrivalDate: iso(payout.arrival_date).slice(0, 10),
      status: payout.status,
      currency: payout.currency.toUpperCase(),
      amountMinor: payout.amount,
      paidOut: await paidOut(stripe, payout, pageSize),
    });
  }
  return out;
}

/** Stripe's balance as the books read it; `pageSize` items a request (Stripe allows up to 100). */
export function stripeBooks(stripe: Stripe, pageSize = 100): ProcessorBooks {
  return {
    items: (period) => items(stripe, period, pageSize),
    payouts: (period) => payouts(stripe, period, pageSize),
  };
}
