export * from './dashboard.ts';
export * from './invoices.ts';
export * from './worker-report.ts';
export type { TransactionDetails } from './transaction-details.ts';
