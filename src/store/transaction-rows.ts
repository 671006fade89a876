import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import {
  LIVE_SUBSCRIPTION_STATUSES,
  STOPPED_SUBSCRIPTION_STATUSES,
  type ChangeFlag,
  type ChargeFrequency,
  type Environment,
  type SubscriptionPause,
  type Transaction,
  type TransactionStatus,
  type TransactionType,
  type WhoCanceled,
} from '../domain/model.ts';
import type { TransactionsTable } from './schema.ts';

export function toTransaction(row: Selectable<TransactionsTable>): Transaction {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    environment: row.environment as Environment,
    productId: row.product_id,
    customizedProductId: row.customized_product_id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    email: row.email,
    assignedEmail: row.assigned_email,
    productName: row.product_name,
    type: row.type as TransactionType,
    status: row.status as TransactionStatus,
    chargeFrequency: row.charge_frequency as ChargeFrequency,
    country: row.country,
    region: row.region,
    currency: row.currency,
    netMinor: Number(row.net_minor),
    taxMinor: Number(row.tax_minor),
    netUsdMinor: Number(row.net_usd_minor),
    taxRate: row.tax_rate,
    taxName: row.tax_name,
    payload: row.payload,
    whoCanceled: row.who_canceled as WhoCanceled | null,
    lastCharge: row.last_charge,
    nextCharge: row.next_charge,
    createdAt: row.created_at,
    changeFlag: row.change_flag as ChangeFlag | null,
    changedAt: row.changed_at,
    businessName: row.business_name ?? null,
    buyerVatId: row.buyer_vat_id ?? null,
    postalCode: row.postal_code ?? null,
    buyerAddress: row.buyer_address ?? null,
    reverseCharge: Number(row.reverse_charge) === 1,
    locale: row.locale ?? null,
    buyerName: row.buyer_name ?? null,
    cancelReason: row.cancel_reason ?? null,
    quantity: Number(row.quantity ?? 1),
    couponId: row.coupon_id ?? null,
    billing: row.billing_anchor
      ? {
          anchor: row.billing_anchor,
          period: Number(row.billing_period),
          failedAttempts: Number(row.failed_attempts),
          anchorPeriod: Number(row.billing_anchor_period ?? 0),
        }
      : undefined,
    pause: pauseOf(row),
  };
}

/** A subscription's latest pause (migration 0036), or null when it was never paused. */
const pauseOf = (row: Selectable<TransactionsTable>): SubscriptionPause | null =>
  row.pause_starts_at
    ? {
        startsAt: row.pause_starts_at,
        resumesAt: row.pause_resumes_at ?? null,
        priorAnchor: row.pause_prior_anchor ?? null,
        priorAnchorPeriod: Number(row.pause_prior_anchor_period ?? 0),
      }
    : null;

export function toTransactionRow(t: Transaction): Insertable<TransactionsTable> {
  return {
    id: t.id,
    vendor_id: t.vendorId,
    environment: t.environment,
    product_id: t.productId,
    customized_product_id: t.customizedProductId,
    customer_id: t.customerId,
    payment_method_id: t.paymentMethodId,
    email: t.email,
    email_lower: t.email.toLowerCase(),
    assigned_email: t.assignedEmail,
    assigned_email_lower: t.assignedEmail?.toLowerCase() ?? null,
    product_name: t.productName,
    type: t.type,
    status: t.status,
    charge_frequency: t.chargeFrequency,
    country: t.country,
    region: t.region,
    currency: t.currency,
    net_minor: t.netMinor,
    tax_minor: t.taxMinor,
    net_usd_minor: t.netUsdMinor,
    tax_rate: t.taxRate,
    tax_name: t.taxName,
    payload: t.payload,
    who_canceled: t.whoCanceled,
    last_charge: t.lastCharge,
    next_charge: t.nextCharge,
    created_at: t.createdAt,
    change_flag: t.changeFlag,
    changed_at: t.changedAt,
    change_version: t.changeFlag ? 1 : 0,
    listed_version: 0,
    feed_pending: t.changeFlag ? 1 : 0,
    billing_anchor: t.billing?.anchor ?? null,
    billing_anchor_period: t.billing?.anchorPeriod ?? 0,
    billing_period: t.billing?.period ?? 0,
    failed_attempts: t.billing?.failedAttempts ?? 0,
    billing_lease_until: null,
    business_name: t.businessName,
    buyer_vat_id: t.buyerVatId,
    postal_code: t.postalCode,
    buyer_address: t.buyerAddress,
    reverse_charge: t.reverseCharge ? 1 : 0,
    locale: t.locale,
    buyer_name: t.buyerName,
    cancel_reason: t.cancelReason,
    quantity: t.quantity,
    coupon_id: t.couponId ?? null,
  };
}

const statusList = (statuses: readonly string[]) => sql.join(statuses.map((s) => sql.lit(s)));

/**
 * `cancelled_at` after a status write, as SQL for the SET of an UPDATE of `transactions`: the first
 * time a subscription stopped renewing (STOPPED_SUBSCRIPTION_STATUSES), kept through every later
 * change; none once it is live again. `status` is the new status, `at` the time of the change that
 * writes it (the row's latest change when there is none). The one place the date is decided, for
 * every path that cancels, ends, refunds or charges back a subscription (docs/decisions.md §19).
 */
export function cancelledAtAfter(status: RawBuilder<unknown>, at: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`case
    when ${status} in (${statusList(STOPPED_SUBSCRIPTION_STATUSES)}) and transactions.type = 'SUBSCRIPTION'
      then coalesce(transactions.cancelled_at, ${at}, transactions.changed_at)
    when ${status} in (${statusList(LIVE_SUBSCRIPTION_STATUSES)}) then null
    else transactions.cancelled_at end`;
}
