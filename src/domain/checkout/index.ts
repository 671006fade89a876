export * from './checkout.ts';
export * from './due-today.ts';
export * from './purchases.ts';
export * from './transactions.ts';
export * from './seat-changes.ts';
export type { LastingDiscount } from './lasting-discounts.ts';
