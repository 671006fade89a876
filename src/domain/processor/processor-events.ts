import type { Environment } from '../model.ts';
import type { ProcessorEventDeps, ProcessorEventReport, ReceiveResult } from './processor-event-model.ts';
import { receiveEvent } from './receive-event.ts';
import { runDueEvents } from './run-due-events.ts';

export type { ProcessorEventDeps, ProcessorEventReport, ReceiveResult } from './processor-event-model.ts';
export { REFUSED_TRIES, retryDelayMs, shortError } from './run-due-events.ts';

/**
 * The processor's events (processor-event-model.ts says what they are): received and stored at once
 * (receive-event.ts), acted on later by the worker (run-due-events.ts), a use case per kind of event.
 */
export function processorEventService(deps: ProcessorEventDeps) {
  return {
    /** Checks and stores an event as the processor delivered it (receive-event.ts). */
    receive: (
      environment: Environment,
      provider: string,
      rawBody: Buffer,
      signature: string | undefined,
    ): Promise<ReceiveResult> => receiveEvent(deps, environment, provider, rawBody, signature),

    /** Acts on the stored events whose try is due (run-due-events.ts). */
    runDue: (limit = 100): Promise<ProcessorEventReport> => runDueEvents(deps, limit),
  };
}

export type ProcessorEventService = ReturnType<typeof processorEventService>;
