import type { Route } from './api.ts';
import { invalidRequest } from './errors.ts';
import { EXPAND, LIST, PAGINATION, inRange, listExpands, paginate } from './lists.ts';
import { S } from './params.ts';
import type { Obj, Store } from './store.ts';

/**
 * `GET /v1/balance_transactions` and `GET /v1/payouts` (with `GET /v1/payouts/:id`): what moved through the
 * account's balance and what was paid out of it, listed newest first with Stripe's filters and cursors,
 * as a reconciliation reads them. The parameters are those of the SDK's BalanceTransactionListParams and
 * PayoutListParams for API 2026-10-28.
 */

/** Every balance transaction `type` Stripe documents (the `type` filter refuses anything else). */
// prettier-ignore
const BALANCE_TRANSACTION_TYPES = [
  'adjustment', 'advance', 'advance_funding', 'anticipation_repayment', 'application_fee', 'application_fee_refund', 'charge',
  'climate_order_purchase', 'climate_order_refund', 'connect_collection_transfer', 'contribution', 'fee_credit_funding',
  'inbound_transfer', 'inbound_transfer_reversal', 'issuing_authorization_hold', 'issuing_authorization_release', 'issuing_dispute',
  'issuing_dispute_provisional_credit', 'issuing_dispute_provisional_credit_reversal', 'issuing_transaction', 'obligation_outbound',
  'obligation_reversal_inbound', 'payment', 'payment_failure_refund', 'payment_network_reserve_hold', 'payment_network_reserve_release',
  'payment_refund', 'payment_reversal', 'payment_unreconciled', 'payout', 'payout_cancel', 'payout_failure',
  'payout_minimum_balance_hold', 'payout_minimum_balance_release', 'refund', 'refund_failure', 'reserve_hold', 'reserve_release',
  'reserve_transaction', 'reserved_funds', 'stripe_balance_payment_debit', 'stripe_balance_payment_debit_reversal', 'stripe_fee',
  'stripe_fx_fee', 'tax_fee', 'tax_fund', 'topup', 'topup_reversal', 'transfer', 'transfer_cancel', 'transfer_failure',
  'transfer_refund',
];

export function balanceAndPayoutLists(store: Store, route: (r: Omit<Route, 'pattern'>) => void): void {
  route({
    method: 'GET',
    path: '/v1/balance_transactions',
    schema: {
      documented: ['created', 'currency', 'expand', 'payout', 'source', 'type', ...PAGINATION],
      props: {
        ...LIST,
        created: { t: 'range' },
        currency: { t: 'string', lower: true },
        payout: S.id,
        source: S.id,
        type: S.enum(...BALANCE_TRANSACTION_TYPES),
      },
    },
    handle: (ctx) => {
      const p = ctx.params;
      if (p.payout !== undefined) {
        const payout = store.find('payouts', p.payout);
        if (!payout)
          throw invalidRequest(`No such payout: '${p.payout}'`, { code: 'resource_missing', param: 'payout' });
        if (!payout.automatic)
          throw invalidRequest('Balance transactions can only be listed by payout for automatic payouts.', {
            param: 'payout',
          });
      }
      const items = store
        .all('balance_transactions')
        .filter(
          (t) =>
            inRange(t.created, p.created) &&
            (p.currency === undefined || t.currency === p.currency) &&
            (p.payout === undefined || store.paidOutIn.get(t.id) === p.payout) &&
            (p.source === undefined || t.source === p.source) &&
            (p.type === undefined || t.type === p.type),
        );
      return store.expand(paginate(items, p, '/v1/balance_transactions'), p.expand ?? [], listExpands(['source']));
    },
  });
  const PAYOUT_EXPANDS = ['balance_transaction'];
  route({
    method: 'GET',
    path: '/v1/payouts',
    schema: {
      documented: ['arrival_date', 'created', 'destination', 'expand', 'status', ...PAGINATION],
      props: {
        ...LIST,
        arrival_date: { t: 'range' },
        created: { t: 'range' },
        status: S.enum('pending', 'paid', 'failed', 'canceled'),
      },
    },
    handle: (ctx) => {
      const p = ctx.params;
      const items = store
        .all('payouts')
        .filter(
          (o: Obj) =>
            inRange(o.created, p.created) &&
            inRange(o.arrival_date, p.arrival_date) &&
            (p.status === undefined || o.status === p.status),
        );
      return store.expand(paginate(items, p, '/v1/payouts'), p.expand ?? [], listExpands(PAYOUT_EXPANDS));
    },
  });
  route({
    method: 'GET',
    path: '/v1/payouts/:id',
    schema: { documented: ['expand'], props: EXPAND },
    handle: (ctx) =>
      store.expand(store.get('payouts', ctx.path.id!, 'payout'), ctx.params.expand ?? [], PAYOUT_EXPANDS),
  });
}
