import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { repeatedFailures } from '../repeated-failures.ts';

/**
 * The request log (docs/decisions.md §11), as Fastify's log controller: one line per answered
 * request, "request completed", with its method, route, status and time. A request answered 5xx is a
 * failure of ours and goes to the failure log instead: in full (its error and stack) the first time
 * its route fails with its code in an interval, counted otherwise (src/repeated-failures.ts), so an
 * outage logs a few lines, not one per request. At `debug`, each request also logs "incoming request"
 * as it arrives.
 */
export class RequestLog extends LogController {
  #log: FastifyBaseLogger | undefined;
  readonly #failures = repeatedFailures((line) => this.#log?.error(line.details, line.message));

  /** The app's own logger, for what the failure log writes outside any request (the counts of an interval). */
  attach(log: FastifyBaseLogger): void {
    this.#log = log;
  }

  /** Writes the counts still held; the app calls this as it closes. */
  stop(): void {
    this.#failures.stop();
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode < 500) {
      request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      return;
    }
    const code = request.failure?.error ?? `HTTP_${reply.statusCode}`;
    const route = request.routeOptions.url ?? 'unmatched';
    this.#failures.report(`${request.method} ${route} answered ${reply.statusCode} ${code}`, request.failure?.err, {
      reqId: request.id,
      req: request,
      res: reply,
    });
  }
}
