/** Where opentill names its attempt on each Stripe object it creates, so a lost answer or an event is traced back to it. */
export const METADATA_ATTEMPT = 'opentill_attempt';
/** Marks a PaymentIntent or SetupIntent opentill started for the browser (the checkout's Payment Element). */
export const METADATA_SESSION = 'opentill_session';

/** The id in a Stripe field that holds either the id or, expanded, the object itself. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value == null) return null;
  return typeof value === 'string' ? value : value.id;
}
