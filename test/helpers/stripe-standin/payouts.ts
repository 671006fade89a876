import type { Payments } from './payments.ts';
import { NO_REQUEST, newId, type Obj, type Store } from './store.ts';

/** Stripe's standard payouts reach a US bank two days after they are made. */
const ARRIVAL_DAYS = 2;

/**
 * Automatic payouts, as Stripe's payout schedule makes them: the available balance of each currency,
 * every balance transaction not paid out yet, sent to the account's bank in one payout, with a `payout`
 * balance transaction that takes it out of the balance. Stripe lists a payout's transactions with
 * `GET /v1/balance_transactions?payout=po_…` (the payout's own among them); the stand-in remembers which
 * payout took each (`Store.paidOutIn`). A currency whose balance is zero or less pays nothing out.
 */
export class Payouts {
  private readonly store: Store;
  private readonly payments: Payments;
  constructor(store: Store, payments: Payments) {
    this.store = store;
    this.payments = payments;
  }

  /** Pays out what is available now, one payout per currency; returns the payouts made (newest first, as Stripe lists). */
  payOut(): Obj[] {
    const now = this.store.created();
    const due = new Map<string, Obj[]>();
    for (const txn of this.store.all('balance_transactions')) {
      if (this.store.paidOutIn.has(txn.id) || txn.available_on > now) continue;
      due.set(txn.currency, [...(due.get(txn.currency) ?? []), txn]);
    }
    const made: Obj[] = [];
    for (const [currency, txns] of due) {
      const amount = txns.reduce((sum, t) => sum + t.net, 0);
      if (amount > 0) made.push(this.payout(currency, amount, txns));
    }
    return made.reverse();
  }

  private payout(currency: string, amount: number, txns: Obj[]): Obj {
    const created = this.store.created();
    const payout: Obj = {
      id: newId('po'),
      object: 'payout',
      amount,
      application_fee: null,
      application_fee_amount: null,
      arrival_date: created + ARRIVAL_DAYS * 86_400,
      automatic: true,
      balance_transaction: null,
      created,
      currency,
      description: 'STRIPE PAYOUT',
      destination: null,
      failure_balance_transaction: null,
      failure_code: null,
      failure_message: null,
      livemode: false,
      metadata: {},
      method: 'standard',
      original_payout: null,
      payout_method: null,
      reconciliation_status: 'completed',
      reversed_by: null,
      source_type: 'card',
      statement_descriptor: null,
      status: 'paid',
      trace_id: { status: 'supported', value: null },
      type: 'bank_account',
    };
    const own = this.payments.newBalanceTransaction({
      amount: -amount,
      currency,
      fee: 0,
      feeDescription: '',
      source: payout.id,
      type: 'payout',
      category: 'payout',
      description: 'STRIPE PAYOUT',
    });
    payout.balance_transaction = own.id;
    this.store.put('payouts', payout);
    for (const txn of [...txns, own]) this.store.paidOutIn.set(txn.id, payout.id);
    this.store.emit('payout.created', payout, NO_REQUEST);
    this.store.emit('payout.paid', payout, NO_REQUEST);
    this.store.emit('payout.reconciliation_completed', payout, NO_REQUEST);
    return payout;
  }
}
