export * from './checkout.ts';
export * from './purchases.ts';
export * from './transactions.ts';
