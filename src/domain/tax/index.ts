export * from './pricing.ts';
export * from './coupon-discounts.ts';
export * from './tax-rates.ts';
export * from './vat-ids.ts';
