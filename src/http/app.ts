import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { registerApiReference } from './api-reference.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { ERROR_STATUS, type WireErrorCode } from './error-status.ts';
import { frameworkErrors, registerErrorHandling } from './errors-plugin.ts';
import { publicPlugin } from './public-plugin.ts';
import { schemaCompilers } from './schema-compilers.ts';
import { sharedCounts } from './shared-counts.ts';
import { RequestLog } from './request-log.ts';
import { addressLimited, limitEachAddress } from './rate-limits.ts';
import { registerWidgetRoutes } from './widget-routes.ts';
import { ENVIRONMENT_PREFIXES } from './http-app.ts';
import { registerLandingPage } from './landing-page.ts';
import {
  createMetrics,
  registerOperationsRoutes,
  type ClusterMetrics,
  type Metrics,
  type Startup,
} from './operations-routes.ts';
import { pagesPlugin } from './pages/index.ts';
import { v1Plugin } from './v1-plugin.ts';
import { webhookPlugin } from './webhook-routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Present when METRICS_TOKEN is set: the billing worker's runs are counted through it. */
    metrics?: Metrics;
  }
}

export interface AppOptions {
  logger?: boolean | { level: string };
  /** In a process of a cluster: where /metrics gets every process's counts. */
  clusterMetrics?: ClusterMetrics;
  /** A server that listens before its database is ready (src/server.ts): until `ready`, everything but the probes is told to retry. */
  startup?: Startup;
}

/** The probes answer while a server starts: alive, and not ready (src/http/operations-routes.ts). */
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * Every request but the probes, while the server waits for its database to start (docs/operations.md),
 * before any hook can reach a schema not migrated yet. A page route with its own answer for that
 * (`whileUnavailable`: the checkout's form, as typed) is refused once its form is read, before its handler.
 */
function refuseUntilStarted(app: FastifyInstance, startup: Startup) {
  const starting = () =>
    new AppError('SERVICE_UNAVAILABLE', 'opentill is starting and waiting for its database; retry in a few seconds.', {
      retryAfterSeconds: 2,
    });
  app.addHook('onRequest', (request, _reply, done) => {
    if (startup.ready || PROBES.has(request.url) || request.routeOptions.config.whileUnavailable) return done();
    done(starting());
  });
  app.addHook('onRoute', (route) => {
    if (!route.config?.whileUnavailable) return;
    const gate = (_request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) =>
      done(startup.ready ? undefined : starting());
    route.preHandler = [gate, ...[route.preHandler ?? []].flat()] as never;
  });
}

/** The error name and message of a request Node's HTTP parser refused, by the parser's error code. */
function clientErrorOf(code: string | undefined): [WireErrorCode, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return ['HEADERS_TOO_LARGE', 'The request line and headers exceed 16 KB; send shorter headers and URL.'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['REQUEST_TIMEOUT', 'The request was not received in time; retry.'];
  return ['BAD_REQUEST', 'The HTTP request is malformed.'];
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, a malformed
 * request line): the same `{error, message}` body as every other error, with an error NAME.
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [error, message] = clientErrorOf(err.code);
  const status = ERROR_STATUS[error];
  const body = JSON.stringify({ error, message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * What a log line says of a request's path. Paths carry secrets (admin and management link tokens,
 * admin sessions, e-mails, licence keys), so a request is logged by the pattern of its route
 * (`/v1/transactions/:email`). A path no route matched keeps only its leading lower-case words, which
 * no token, e-mail or key is (`/admin/*`). Never the query.
 */
function loggedUrl(request: FastifyRequest | undefined): string | undefined {
  if (!request) return undefined;
  // routeOptions is missing only when something logs a raw Node request.
  const route = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.url;
  if (route !== undefined) return route;
  const segments = (request.url ?? '').split('?')[0]!.split('/').filter(Boolean);
  const words = segments.findIndex((segment) => !/^[a-z][a-z-]{0,39}[0-9]?$/.test(segment));
  return words === -1 ? `/${segments.join('/')}` : `/${[...segments.slice(0, words), '*'].join('/')}`;
}

/**
 * The public price endpoint (what the client script calls, no credentials) is documented with the
 * API; the checkout start stays out, as only the client script calls it.
 */
function listPublicPrice(url: string, schema: object | undefined) {
  if (url !== '/public/v1/price/:productId') return schema;
  return {
    ...schema,
    hide: false,
    tags: ['public'],
    summary: "A product's price for a customer, tax included (no credentials; what the client script shows)",
    description:
      "The customer's country comes from `country` (ISO 3166-1 alpha-2), else from the request's address; a US `zip` refines the sales tax. Cross-origin requests are allowed from any site.",
    security: [],
  };
}

/**
 * Fastify's options: the logger (none at all when silent: with one, even a silent one, Fastify makes a
 * child logger per request), request ids, limits, and the answers to requests no route sees.
 */
function serverOptions(config: Services['config'], options: AppOptions) {
  const logging = !(options.logger === false || (options.logger === undefined && config.logLevel === 'silent'));
  // One line per request, and failures once per kind and interval: src/http/request-log.ts.
  const requestLog = logging ? new RequestLog() : undefined;
  return {
    requestLog,
    options: {
      logger: requestLog && {
        level: typeof options.logger === 'object' ? options.logger.level : config.logLevel,
        // Never a credential, card number or payload in a log line: only method, route and status.
        redact: ['req.headers.authorization', 'req.headers.cookie'],
        serializers: {
          req: (req: FastifyRequest) => ({ method: req.method, url: loggedUrl(req), remoteAddress: req.ip }),
          res: (reply: { statusCode: number; request?: FastifyRequest }) => ({
            statusCode: reply.statusCode,
            url: loggedUrl(reply.request),
          }),
        },
      },
      ...(requestLog ? { logController: requestLog } : {}),
      genReqId: (req: IncomingMessage) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
      },
      requestIdHeader: false,
      trustProxy: config.trustProxy,
      bodyLimit: 1024 * 1024,
      return503OnClosing: true,
      schemaController: { compilersFactory: schemaCompilers },
      ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
      clientErrorHandler,
      frameworkErrors,
    } satisfies FastifyServerOptions,
  };
}

/** The OpenAPI document (production's paths; the sandbox has the same under /sandbox) and the API reference that shows it. */
async function registerOpenApi(app: FastifyInstance, services: Services) {
  const { config } = services;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'opentill Transaction Management API',
        version: '1.0.0',
        description:
          "Read and manage the transactions of your customers, and your products. Authenticate every call with the header `Authorization: <API_LOGIN>:<API_PASSWORD>` (no scheme). **Which credential goes where:** a sandbox credential works only at the sandbox server (`…/sandbox`), a production credential only at production; anything else is 401. Choose the server that matches your credential (opened from a sandbox link, this page offers the sandbox first). Every error answers `{error, message}`. Send `Idempotency-Key` on POSTs to make retries safe. Operations marked `x-opentill-extension` are opentill's own, beyond the original API.",
      },
      servers: [
        { url: config.baseUrl, description: 'Production: your production credential (real money)' },
        { url: config.sandboxUrl, description: 'Sandbox: your sandbox credential (virtual money, test cards)' },
      ],
      components: {
        securitySchemes: {
          apiCredentials: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: '<API_LOGIN>:<API_PASSWORD>',
          },
        },
      },
      security: [{ apiCredentials: [] }],
    },
    transform: ({ schema, url }) => ({
      schema: (url.startsWith('/sandbox') ? { ...schema, hide: true } : listPublicPrice(url, schema)) as never,
      url,
    }),
  });
  // The API reference (Scalar, its script served from the package, under a nonce-based CSP): src/http/api-reference.ts.
  await app.register(registerApiReference, { services });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Builds the whole HTTP application without listening (src/server.ts listens). Production lives at
 * the root, the sandbox under /sandbox: the same routes, separate credentials and data.
 */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const server = serverOptions(config, options);
  const app = Fastify(server.options).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app);
  if (options.startup) refuseUntilStarted(app, options.startup);
  const { requestLog } = server;
  if (requestLog) {
    requestLog.attach(app.log);
    app.addHook('onClose', async () => requestLog.stop());
  }
  // Where rate limits count: asked before any route, and watched by /metrics.
  const shared = await sharedCounts(app, config);
  // Off unless METRICS_TOKEN is set; then every request is timed, so the hook comes before any route.
  const metrics = config.metricsToken
    ? createMetrics(services, config.metricsToken, { cluster: options.clusterMetrics, redisUp: shared.up })
    : undefined;
  if (metrics) {
    app.addHook('onResponse', metrics.onResponse);
    app.decorate('metrics', metrics);
  }
  // Hosted sandbox pages and the public sandbox API see a clock another process moved within a second
  // (the sandbox API loads its vendor's clock on every request, src/http/v1-plugin.ts). Best effort: a
  // database away leaves the offsets as they were, and the page says what it cannot do itself.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/sandbox/') || request.url.startsWith('/sandbox/v1/')) return done();
    services.sandboxClock.refreshWithin(1000).then(
      () => done(),
      () => done(),
    );
  });
  // Set as the request arrives (a synchronous hook: no promise per request); error answers keep it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  // A POST with Content-Type: application/json and an empty body is a POST with no body (cancel, refund).
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    void defaultJson(request, body as string, done);
  });

  // The per-address limit: through the plugin's Redis store when REDIS_URL is set, else counted here
  // synchronously (src/http/rate-limits.ts). The plugin also limits routes with their own config.rateLimit.
  await app.register(rateLimit, {
    store: shared.store,
    skipOnError: shared.store !== undefined,
    global: shared.store !== undefined,
    max: config.rateLimit.perAddressPerMinute,
    timeWindow: 60_000,
    errorResponseBuilder: (request, context) => addressLimited(request, context.ttl),
  });
  if (!shared.store) limitEachAddress(app, config.rateLimit.perAddressPerMinute, 60_000);

  await registerOpenApi(app, services);
  registerLandingPage(app, services);
  registerOperationsRoutes(app, services, metrics, options.startup);

  for (const [environment, prefix] of ENVIRONMENT_PREFIXES) {
    await app.register(v1Plugin, { prefix: `${prefix}/v1`, services, environment });
    await app.register(publicPlugin, { prefix: `${prefix}/public/v1`, services, environment });
    await app.register(webhookPlugin, { prefix: `${prefix}/webhooks`, services, environment });
  }
  // The client script, both environments at {cdn_url}/latest/ (the CDN is this server).
  await app.register(registerWidgetRoutes);
  await app.register(pagesPlugin, { services });

  return app;
}
