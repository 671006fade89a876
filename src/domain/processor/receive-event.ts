import type { Environment } from '../model.ts';
import type { ProcessorEventDeps, ReceiveResult } from './processor-event-model.ts';

/**
 * An event as the processor delivered it: checked by the environment's gateway over the raw body
 * and stored once (a second delivery stores nothing new). Nothing is acted on here; the worker
 * does that (`runDue`), so the processor hears back at once.
 */
export async function receiveEvent(
  deps: Pick<ProcessorEventDeps, 'store' | 'clock' | 'gateways'>,
  environment: Environment,
  provider: string,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<ReceiveResult> {
  const gateway = deps.gateways[environment];
  if (!gateway.verifyEvent || gateway.provider.toLowerCase() !== provider.toLowerCase()) {
    return {
      status: 'NOT_FOUND',
      message: `The ${environment} payment processor sends no ${provider} events here.`,
    };
  }
  const check = gateway.verifyEvent(rawBody, signature);
  if (check.status !== 'OK') return check;
  const { event } = check;
  // No store keeps U+0000 in text; no processor's JSON carries it unescaped.
  if (
    event.id === '' ||
    [event.id, event.type, event.createdAt, event.payload].some((text) => text.includes('\u0000'))
  ) {
    return { status: 'INVALID', message: 'The event is malformed.' };
  }
  const receivedAt = deps.clock.now().toISOString();
  const { fresh } = await deps.store.processorEvents.record({
    id: `${provider.toLowerCase()}:${environment}:${event.id}`,
    provider: provider.toLowerCase(),
    environment,
    eventId: event.id,
    type: event.type,
    createdAt: event.createdAt,
    payload: event.payload,
    receivedAt,
  });
  return { status: fresh ? 'STORED' : 'DUPLICATE' };
}
