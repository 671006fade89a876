export * from './payout-model.ts';
export * from './payout-statement.ts';
export * from './payouts.ts';
export * from './statement-csv.ts';
export * from './tax-report.ts';
export * from './tax-returns.ts';
export * from './reconciliation.ts';
export * from './reconciliation-model.ts';
