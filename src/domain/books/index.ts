export * from './payout-model.ts';
export * from './payout-statement.ts';
export * from './payouts.ts';
