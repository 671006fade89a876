import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  ChargeResult,
  EventCheck,
  NotFound,
  PaymentGateway,
  ProcessorEvent,
  RefundResult,
} from '../../src/domain/payments/gateway.ts';

/**
 * A payment processor with events, for tests of what opentill does with them: its money is the real
 * sandbox gateway's (bound with `use` once the test app's database exists), its lookups may be
 * scripted, and its events are signed with an HMAC of the test's choosing and carry, as JSON, what
 * each one means (`translated`). Events are posted to the app's webhook endpoint as the processor
 * posts them (`processorWebhooks`).
 */
export const PROCESSOR_SECRET = 'whsec_processor_events_test';
/** How old a signature may be, in seconds. */
export const TOLERANCE_S = 300;

/** The signature header the processor sends with `body` at `at`. */
export function sign(body: string, at: Date, secret = PROCESSOR_SECRET): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** A processor with events: its money is the sandbox's, its answers and event meanings are scripted. */
export function scriptedProcessor(now: () => Date) {
  let real: PaymentGateway | undefined;
  const script = {
    /** Lookups answered from here instead of the sandbox, by attempt id. */
    lookups: new Map<string, ChargeResult | NotFound>(),
    /** How many more times translating an event (by id) throws. */
    failTranslate: new Map<string, number>(),
    /** The next charge or refund moves the money but its answer is lost. */
    loseChargeAnswer: false,
    loseRefundAnswer: false,
    /** What the processor calls each payment and refund it made, by opentill's attempt id. */
    charged: new Map<string, string>(),
    refunded: new Map<string, string>(),
    lookupCalls: 0,
  };
  const sandbox = () => real!;
  const gateway: PaymentGateway = {
    provider: 'STRIPE',
    cardEntry: { kind: 'form' },
    tokenize: (card, at) => sandbox().tokenize(card, at),
    startSession: (request) => sandbox().startSession(request),
    authenticationSession: (reference) => sandbox().authenticationSession(reference),
    cancelPending: (reference) => sandbox().cancelPending(reference),
    async charge(request) {
      const result = await sandbox().charge(request);
      if (result.status === 'SUCCEEDED') script.charged.set(request.attemptId, result.reference);
      if (script.loseChargeAnswer) {
        script.loseChargeAnswer = false;
        return { status: 'UNKNOWN' };
      }
      return result;
    },
    async refund(request): Promise<RefundResult> {
      const result = await sandbox().refund(request);
      if (result.status === 'SUCCEEDED') script.refunded.set(request.refundId, result.reference);
      if (script.loseRefundAnswer) {
        script.loseRefundAnswer = false;
        return { status: 'UNKNOWN' };
      }
      return result;
    },
    async lookupCharge(attemptId, reference) {
      script.lookupCalls++;
      return script.lookups.get(attemptId) ?? sandbox().lookupCharge(attemptId, reference);
    },
    lookupRefund: (refundId, chargeReference) => sandbox().lookupRefund(refundId, chargeReference),
    verifyEvent(rawBody, signature): EventCheck {
      if (signature === undefined) return { status: 'INVALID', message: 'The signature header is missing.' };
      const parts = Object.fromEntries(signature.split(',').map((part) => part.split('=', 2) as [string, string]));
      const t = Number(parts.t);
      const given = Buffer.from(parts.v1 ?? '', 'hex');
      const expected = createHmac('sha256', PROCESSOR_SECRET).update(`${parts.t}.`).update(rawBody).digest();
      if (!Number.isInteger(t) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { status: 'INVALID', message: 'The signature does not match the body.' };
      }
      if (Math.abs(now().getTime() / 1000 - t) > TOLERANCE_S)
        return { status: 'INVALID', message: 'The signature is too old.' };
      const body = JSON.parse(rawBody.toString('utf8')) as { id: string; type: string; created: number };
      return {
        status: 'OK',
        event: {
          id: body.id,
          type: body.type,
          createdAt: new Date(body.created * 1000).toISOString(),
          payload: rawBody.toString('utf8'),
        },
      };
    },
    async translateEvent(event) {
      const left = script.failTranslate.get(event.id) ?? 0;
      if (left > 0) {
        script.failTranslate.set(event.id, left - 1);
        throw new Error('The processor could not be reached about customer@example.com');
      }
      return (JSON.parse(event.payload) as { translated: ProcessorEvent }).translated;
    },
  };
  return {
    gateway,
    script,
    use(sandboxGatewayOfTheApp: PaymentGateway) {
      real = sandboxGatewayOfTheApp;
    },
  };
}

/**
 * Posts events to an app's webhook endpoint as the processor does: a signed JSON body, under a fresh
 * event id unless one is given. `path` is the sandbox's endpoint unless told otherwise.
 */
export function processorWebhooks(url: () => string, now: () => Date, prefix = 'evt') {
  let serial = 0;
  const bodyOf = (id: string, translated: ProcessorEvent, created = now()) =>
    JSON.stringify({ id, type: `test.${translated.kind}`, created: Math.floor(created.getTime() / 1000), translated });
  return {
    /** Delivers the event; answers the event's id once the app said it received it. */
    async deliver(
      translated: ProcessorEvent,
      options: { id?: string; created?: Date; path?: string } = {},
    ): Promise<string> {
      const id = options.id ?? `${prefix}_${++serial}`;
      const body = bodyOf(id, translated, options.created);
      const res = await fetch(`${url()}${options.path ?? '/sandbox/webhooks/stripe'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': sign(body, now()) },
        body,
      });
      const answer = await res.text();
      if (res.status !== 200) throw new Error(`the webhook answered ${res.status}: ${answer}`);
      return id;
    },
  };
}
