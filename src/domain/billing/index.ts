export * from './billing-period.ts';
export * from './billing.ts';
export * from './proration.ts';
export * from './sandbox-clock.ts';
export * from './pause-rules.ts';
export * from './pauses.ts';
