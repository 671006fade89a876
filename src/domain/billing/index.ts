export * from './billing-period.ts';
export * from './billing.ts';
export * from './proration.ts';
export * from './sandbox-clock.ts';
