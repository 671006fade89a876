export * from './payout-model.ts';
export * from './payout-statement.ts';
export * from './payouts.ts';
export * from './statement-csv.ts';
