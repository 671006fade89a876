import { sql } from 'kysely';
import type { Coupon } from '../domain/model.ts';
import type { Executor } from './database.ts';

/*
 * The dashboard's MRR counts a lasting coupon while it lasts (docs/decisions.md §38, §19): a
 * subscription's group carries the coupon its next renewal applies (by the period it charges next,
 * `billing_period`, as renewals do), and the coupon's discount is read once per coupon.
 */

/** The coupon the subscription's next renewal applies, else null: as SQL over `transactions`. */
export const nextRenewalCoupon = sql<string | null>`case when transactions.coupon_id is not null and exists (
  select 1 from coupons where coupons.id = transactions.coupon_id and (coupons.duration = 'forever'
    or (coupons.duration = 'repeating' and transactions.billing_period < coupons.duration_periods)
    or (coupons.duration = 'once' and transactions.billing_period < 1))
) then transactions.coupon_id end`;

/** The discounts of these coupons, by id. */
export async function couponDiscounts(
  db: Executor,
  ids: (string | null)[],
): Promise<Map<string, Pick<Coupon, 'percentOff' | 'amountsOff'>>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  const found = new Map<string, Pick<Coupon, 'percentOff' | 'amountsOff'>>();
  for (let i = 0; i < wanted.length; i += 500) {
    for (const c of await db
      .selectFrom('coupons')
      .select(['id', 'percent_off', 'amounts_off_json'])
      .where('id', 'in', wanted.slice(i, i + 500))
      .execute())
      found.set(c.id, {
        percentOff: c.percent_off,
        amountsOff: JSON.parse(c.amounts_off_json) as Record<string, number>,
      });
  }
  return found;
}
