export * from './customer-portal.ts';
