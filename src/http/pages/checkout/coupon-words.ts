import type { LastingDiscount } from '../../../domain/checkout/index.ts';
import type { Translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';

/** A frequency's periods as days, weeks, months or years: half a year is said as 6 months. */
function periods(tr: Translator, frequency: LastingDiscount['frequency'], count: number): string {
  if (frequency === 'DAILY') return tr.t('checkout.couponPeriods', { unit: 'DAY', count });
  if (frequency === 'WEEKLY') return tr.t('checkout.couponPeriods', { unit: 'WEEK', count });
  if (frequency === 'HALF_YEARLY') return tr.t('checkout.couponPeriods', { unit: 'MONTH', count: count * 6 });
  if (frequency === 'YEARLY') return tr.t('checkout.couponPeriods', { unit: 'YEAR', count });
  return tr.t('checkout.couponPeriods', { unit: 'MONTH', count });
}

/**
 * How long a subscription's coupon lasts, in the buyer's language (docs/decisions.md §38): "20% off
 * for 3 months, then $9.00 every month", "20% off the first payment, then …", "$3.00 off every payment".
 */
export function couponWords(tr: Translator, lasting: LastingDiscount): string {
  const { coupon } = lasting;
  const discount =
    coupon.percentOff !== null
      ? new Intl.NumberFormat(tr.lang, { style: 'percent', maximumFractionDigits: 2 }).format(
          Number(coupon.percentOff) / 100,
        )
      : tr.money(lasting.discountMinor, lasting.currency);
  if (coupon.duration === 'forever') return tr.t('checkout.couponForever', { discount });
  const then = {
    discount,
    price: tr.money(lasting.thenTotalMinor, lasting.currency),
    every: tr.t('common.every', { frequency: lasting.frequency }),
  };
  if (coupon.duration === 'repeating' && (coupon.durationPeriods ?? 1) > 1)
    return tr.t('checkout.couponRepeatingThen', {
      ...then,
      periods: periods(tr, lasting.frequency, coupon.durationPeriods!),
    });
  return tr.t('checkout.couponOnceThen', then);
}

/** The coupon's words under the price table, when a subscription has one. */
export const couponTermsLine = (tr: Translator, lasting: LastingDiscount | null | undefined): Html | string =>
  lasting ? html`<p data-testid="coupon-terms">${couponWords(tr, lasting)}</p>` : '';
