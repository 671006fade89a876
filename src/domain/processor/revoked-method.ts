import type { ProcessorEvent } from '../payments/index.ts';
import type { Environment } from '../model.ts';
import type { Acted, ProcessorEventDeps } from './processor-event-model.ts';

/**
 * A stored method whose mandate the customer revoked at their bank or wallet (a SEPA mandate, a PayPal
 * billing agreement): nothing may be charged with it again. Each subscription it pays is cancelled at
 * the end of the period paid for, and each vaulted method deactivated, by WALLET_PROVIDER (§37); one
 * already ended stays as it is, so the event acted on twice changes nothing twice.
 */
export async function actOnRevokedMethod(
  deps: Pick<ProcessorEventDeps, 'store' | 'cancel'>,
  environment: Environment,
  event: Extract<ProcessorEvent, { kind: 'method-revoked' }>,
): Promise<Acted> {
  const charged = await deps.store.paymentMethods.chargedWith(environment, event.token);
  if (charged.length === 0) return 'ignored';
  if (!deps.cancel) throw new Error('a revoked payment method needs the cancellation service');
  for (const { scope, transactionId } of charged) await deps.cancel(scope, transactionId, 'WALLET_PROVIDER');
  return 'processed';
}
