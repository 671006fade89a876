export * from './buyer-money.ts';
export * from './exchange-rates.ts';
export * from './money.ts';
export * from './price-list.ts';
export * from './platform-fee.ts';
export * from './rate-history.ts';
