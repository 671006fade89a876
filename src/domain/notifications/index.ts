export * from './customer-email-model.ts';
export * from './customer-emails.ts';
