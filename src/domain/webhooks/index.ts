export * from './webhooks.ts';
export * from './webhook-model.ts';
export type { WebhookDeps, WebhookOptions } from './webhook-context.ts';
export type { WebhookPresenters } from './event-body.ts';
export { checkEndpointUrl, isLinkLocal, isPublicAddress, privateAllowed } from './address-guard.ts';
export { afterTry } from './webhook-retry.ts';
