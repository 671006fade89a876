import type { VendorClock } from '../clock.ts';
import type { Store, WebhookEndpoint } from '../ports.ts';
import type { WebhookPresenters } from './event-body.ts';
import type { WebhookTransport } from './webhook-model.ts';

/** What the webhook service is made over. */
export interface WebhookDeps {
  store: Store;
  /** Real time: retries and leases never follow a vendor's moved sandbox clock. */
  clock: Pick<VendorClock, 'real'>;
  transport: WebhookTransport;
  /** OPENTILL_SECRET: endpoints' signing secrets are sealed under it. */
  serverSecret: string;
  /** WEBHOOKS_ALLOW_PRIVATE: production endpoints may be private addresses too. */
  allowPrivate: boolean;
  present: WebhookPresenters;
  /** Tells the vendor an endpoint was disabled (an e-mail, when the operator set SMTP_URL). */
  notifyDisabled?: ((endpoint: WebhookEndpoint) => Promise<void>) | undefined;
}

export interface WebhookOptions {
  /** How long a worker holds the events it claimed (60 s). */
  leaseMs?: number;
  batchSize?: number;
  /** Tries made at once (16). */
  concurrency?: number;
  /** One try's time limit (10 s). */
  timeoutMs?: number;
  /** The waits between tries (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

export interface WebhookContext {
  deps: WebhookDeps;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  retryDelaysMs: readonly number[] | undefined;
}
