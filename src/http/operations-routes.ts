import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkerReport } from '../domain/reports/index.ts';
import type { Services } from '../services.ts';
import { sendError } from './errors-plugin.ts';

/**
 * What an operator's probes and Prometheus read: `/healthz` (the process answers), `/readyz` (it can
 * serve: database reachable, schema current) and, with METRICS_TOKEN set, `/metrics`.
 * docs/decisions.md §11, "Service endpoints".
 */
export function registerOperationsRoutes(
  app: FastifyInstance,
  services: Services,
  metrics: Metrics | undefined,
  startup?: Startup,
) {
  const payments = () => ({
    production: services.payments.describe('production'),
    sandbox: services.payments.describe('sandbox'),
  });
  // Alive: nothing outside the process is asked, so a database outage never gets a healthy process restarted.
  app.get('/healthz', { schema: { hide: true }, config: { rateLimit: false } }, async () => ({
    status: 'ok',
    payments: payments(),
  }));

  app.get('/readyz', { schema: { hide: true }, config: { rateLimit: false } }, async (_request, reply) => {
    let database: 'ok' | 'unreachable' = 'ok';
    let pendingMigrations: string[] = [];
    try {
      // The migration table first: a schema that is behind may lack the tables a ping reads.
      pendingMigrations = await services.maintenance.pendingMigrations();
      if (pendingMigrations.length === 0) await services.maintenance.ping();
    } catch {
      database = 'unreachable';
    }
    const checks = { database, pendingMigrations, payments: payments() };
    const started = startup?.ready ?? true;
    if (database === 'ok' && pendingMigrations.length === 0 && started) return { status: 'ready', ...checks };
    const message = notReadyMessage(database, pendingMigrations);
    reply.request.failure = { error: 'SERVICE_UNAVAILABLE', err: undefined };
    return reply
      .code(503)
      .header('retry-after', '2')
      .type('application/json; charset=utf-8')
      .send({ error: 'SERVICE_UNAVAILABLE', message, requestId: reply.request.id, ...checks });
  });

  if (metrics) app.get('/metrics', { schema: { hide: true } }, metrics.scrape);
}

/** Why /readyz says not ready: the first of an unreachable database, a schema behind, a server still starting. */
function notReadyMessage(database: 'ok' | 'unreachable', pendingMigrations: string[]): string {
  if (database !== 'ok') return 'The database is not reachable.';
  if (pendingMigrations.length > 0)
    return `The database schema lacks ${pendingMigrations.length} migration(s) of this version; run \`opentill migrate\` or restart.`;
  return 'The server is still starting.';
}

/** Whether a listening server has finished starting: migrated, seeded, its sandbox clocks loaded (src/server.ts). */
export interface Startup {
  readonly ready: boolean;
}

/** How a process of a cluster gets every process's figures: from the primary, which gathers them. */
export interface ClusterMetrics {
  everyProcess(): Promise<string>;
}

export interface Metrics {
  /** The onResponse hook that times every request: added before any route, so it sees them all. */
  onResponse(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The /metrics handler. */
  scrape(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** What the billing worker's runs add to the counters. */
  observeBilling(report: WorkerReport): void;
}

/**
 * `/metrics` in Prometheus's text format, for a scraper bearing `Authorization: Bearer <token>`.
 * Requests are timed by route pattern (never the path: no e-mail or token in a label); the work
 * waiting is counted in the database at each scrape. In a cluster (`serve --processes N`) the
 * process that answers asks the primary for every process's counts, summed (src/server-cluster.ts).
 */
export function createMetrics(
  services: Services,
  token: string,
  watched: { cluster?: ClusterMetrics | undefined; redisUp?: (() => boolean) | undefined } = {},
): Metrics {
  const { cluster } = watched;
  // What each process counts for itself (summed across a cluster), and what is read from the database once per scrape.
  const registry = new Registry();
  const registers = [registry];
  const state = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'opentill_' });
  const counters = processCounters(registers);
  const waiting = waitingGauges(state);
  connectionGauges(services, registers, watched.redisUp);
  if (cluster) {
    // This process answers the primary's requests for its own figures.
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }

  const expected = createHash('sha256').update(`Bearer ${token}`).digest();
  return {
    async onResponse(request, reply) {
      // An unknown path is one label, not one per path a client made up.
      const route = request.routeOptions.url ?? 'unmatched';
      counters.requests.observe(
        { method: request.method, route, status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      if (reply.statusCode >= 500)
        counters.failures.inc({ code: request.failure?.error ?? `HTTP_${reply.statusCode}` });
    },
    async scrape(request, reply) {
      const given = createHash('sha256')
        .update(request.headers.authorization ?? '')
        .digest();
      if (!timingSafeEqual(given, expected)) {
        reply.header('www-authenticate', 'Bearer realm="opentill metrics"');
        return sendError(reply, 'UNAUTHORIZED', 'Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.');
      }
      await countWaiting(services, waiting);
      // Should the primary not answer, this process's own figures are better than none.
      const counted = cluster ? await cluster.everyProcess().catch(() => registry.metrics()) : await registry.metrics();
      return reply.type(registry.contentType).send(`${counted.trimEnd()}\n${await state.metrics()}`);
    },
    observeBilling(report) {
      for (const outcome of ['renewed', 'declined', 'failed', 'ended', 'unknown'] as const)
        if (report[outcome] > 0) counters.billing.inc({ outcome }, report[outcome]);
      for (const outcome of ['sent', 'retried', 'failed', 'skipped'] as const)
        if (report.emails[outcome] > 0) counters.emails.inc({ outcome }, report.emails[outcome]);
      if (report.attempts.expiredSessions > 0) counters.expiredSessions.inc(report.attempts.expiredSessions);
    },
  };
}

/** What each process counts for itself: its requests, its failures, and what its billing worker did. */
function processCounters(registers: Registry[]) {
  const requests = new Histogram({
    name: 'opentill_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, and how long each took to answer (its _count is the number of requests)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const emails = new Counter({
    name: 'opentill_customer_emails_total',
    help: 'Customer e-mails the worker handled, by outcome: sent, retried (refused for now), failed (given up), skipped (turned off by the vendor)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const failures = new Counter({
    name: 'opentill_errors_total',
    help: 'Requests answered with a failure of ours (5xx), by error code: SERVICE_UNAVAILABLE is an outage of the database or the payment provider, INTERNAL_ERROR a bug',
    labelNames: ['code'] as const,
    registers,
  });
  const billing = new Counter({
    name: 'opentill_billing_subscriptions_total',
    help: "Subscriptions the billing worker handled, by outcome: renewed, declined (to be retried), failed (cancelled after the last retry), ended, unknown (the gateway's answer was lost)",
    labelNames: ['outcome'] as const,
    registers,
  });
  const expiredSessions = new Counter({
    name: 'opentill_checkout_sessions_expired_total',
    help: 'Browser checkout sessions left unfinished (the customer, or a script, never paid): cancelled at the processor once expired and closed by the worker',
    registers,
  });
  return { requests, emails, failures, billing, expiredSessions };
}

/** The work waiting, read from the database at each scrape (not summed across a cluster: every process reads the same). */
function waitingGauges(state: Registry) {
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [state] });
  const due = gauge('opentill_billing_due', 'Subscriptions due now and not yet renewed (counted up to a million)');
  const open = gauge(
    'opentill_charge_attempts_open',
    'Charge and refund attempts whose outcome is not yet known (counted up to a million)',
  );
  const events = gauge(
    'opentill_processor_events_waiting',
    'Payment processor webhook events received and not yet handled (counted up to a million)',
  );
  const mails = gauge(
    'opentill_customer_emails_waiting',
    'Customer e-mails queued and not yet sent, retries included (counted up to a million)',
  );
  const up = gauge('opentill_database_up', '1 when the database answered the last scrape, else 0');
  return { due, open, events, mails, up };
}

/** Reads the work waiting into its gauges; a database that does not answer is `opentill_database_up 0`. */
async function countWaiting(services: Services, gauges: ReturnType<typeof waitingGauges>) {
  try {
    const waiting = await services.maintenance.waiting();
    gauges.due.set(waiting.billingDue);
    gauges.open.set(waiting.openAttempts);
    gauges.events.set(waiting.eventsWaiting);
    gauges.mails.set(waiting.emailsWaiting);
    gauges.up.set(1);
  } catch {
    gauges.up.set(0);
  }
}

/** The process's connections to Redis and PostgreSQL, read whenever the figures are gathered. */
function connectionGauges(services: Services, registers: Registry[], redisUp: (() => boolean) | undefined) {
  if (redisUp) {
    new Gauge({
      name: 'opentill_redis_up',
      help: '1 when Redis answered the last rate-limit count this process asked of it, else 0 (requests then pass uncounted)',
      registers,
      // A cluster says 0 when any of its processes cannot count in Redis.
      aggregator: 'min',
      collect() {
        this.set(redisUp() ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'opentill_database_connections',
    help: "PostgreSQL's connection pools: connections in use, idle, and requests waiting for one",
    labelNames: ['state'],
    registers,
    // Read whenever the figures are gathered, in every process of a cluster, and summed.
    collect() {
      const connections = services.maintenance.connections();
      if (!connections) return;
      this.set({ state: 'in_use' }, connections.open - connections.idle);
      this.set({ state: 'idle' }, connections.idle);
      this.set({ state: 'waiting' }, connections.waiting);
    },
  });
}
