// The webhook tables of the schema (src/store/schema.ts), kept apart so that file stays readable.

/** A vendor's endpoint in one environment (src/domain/webhooks); `secret` is encrypted. */
export interface WebhookEndpointsTable {
  id: string;
  vendor_id: string;
  environment: string;
  url: string;
  secret: string;
  enabled: number;
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  created_at: string;
  removed_at: string | null;
}

/** The outbox: one event for one endpoint, with its tries. */
export interface WebhookEventsTable {
  id: string;
  endpoint_id: string;
  vendor_id: string;
  environment: string;
  transaction_id: string | null;
  seq: number;
  type: string;
  payload: string;
  status: string;
  tries: number;
  next_try_at: string;
  give_up_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  last_try_at: string | null;
  created_at: string;
  delivered_at: string | null;
}
