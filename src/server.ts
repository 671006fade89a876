import closeWithGrace from 'close-with-grace';
import type { Config } from './config.ts';
import { seedDemoIfEmpty } from './demo-seed.ts';
import { AppError } from './domain/errors.ts';
import { buildApp } from './http/app.ts';
import type { ClusterMetrics } from './http/operations-routes.ts';
import { createServices, type Services } from './services.ts';
import { eventful, failedRun, startBillingWorker } from './worker.ts';
import { smtpHost } from './mail/smtp-sender.ts';
import { whenDatabaseAnswers } from './database-wait.ts';
import { repeatedFailures } from './repeated-failures.ts';

/** Migrates and, on the very first start, seeds the demo vendor. */
async function migrateAndSeed(services: Services, config: Config) {
  await services.maintenance.migrate();
  return config.seedDemo ? await seedDemoIfEmpty(services) : undefined;
}

/** A process of a cluster starts once its primary has migrated the schema: until then it is told to wait, as for the database. */
async function schemaMigrated(services: Services): Promise<undefined> {
  const pending = await services.maintenance.pendingMigrations();
  if (pending.length > 0)
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      `the schema lacks ${pending.length} migration(s); the primary is migrating it`,
      { retryAfterSeconds: 2 },
    );
  return undefined;
}

/**
 * What a cluster's primary does once, before any process serves: migrate and seed on a connection of
 * its own, waiting for a database that does not answer yet.
 */
export async function prepareStore(config: Config) {
  const services = createServices(config);
  try {
    return await whenDatabaseAnswers(() => migrateAndSeed(services, config), {
      log: (message) => process.stderr.write(`${new Date().toISOString()} opentill: ${message}\n`),
    });
  } finally {
    await services.close();
  }
}

/** What the start says of PANEL_SIGNUP, so the operator sees who may make a vendor account. */
const SIGN_UP: Record<Config['panelSignup'], string> = {
  closed: 'closed (add vendors with opentill vendor create; PANEL_SIGNUP=invite or open changes it)',
  invite: 'by invitation (opentill vendor invite --email <address>)',
  open: 'open to anyone; new vendors stay in the sandbox until opentill vendor enable-production',
};

/** Which store the server uses, as the banner names it. */
function storeName(config: Config): string {
  if (config.databaseUrl) return 'PostgreSQL';
  return config.sqliteFile === ':memory:'
    ? 'SQLite in memory (nothing is kept when the process ends)'
    : `SQLite at ${config.sqliteFile}`;
}

/** What `serve` prints once it listens: where, on which store, and a first start's demo credentials. */
export function startBanner(
  config: Config,
  demo: Awaited<ReturnType<typeof seedDemoIfEmpty>> | undefined,
  processes = 1,
): string {
  const store = storeName(config);
  const serving = processes > 1 ? `, ${processes} processes` : '';
  const lines = [
    `opentill is listening on ${config.baseUrl} (sandbox: ${config.sandboxUrl}), store: ${store}${serving}`,
    config.smtp
      ? `Customer e-mails: on, from ${config.smtp.from} through ${smtpHost(config.smtp.url)}`
      : 'Customer e-mails: off (set SMTP_URL and SMTP_FROM to send receipts and notices)',
    `Panel sign-up: ${SIGN_UP[config.panelSignup]}`,
    `API reference: ${config.baseUrl}/docs`,
  ];
  if (demo) {
    lines.push(
      '',
      'First start: a demo vendor with sandbox products and purchases was created.',
      `Sandbox API credential (shown only now): ${demo.credential.authorization}`,
      `Panel login (shown only now): ${config.baseUrl}/panel as ${demo.panel.email}, password ${demo.panel.password}`,
      'Try:',
      `  curl -H 'Authorization: ${demo.credential.authorization}' ${config.sandboxUrl}/v1/transactions/bob@example.com`,
      `Hear the next sale in your app (README, "Hearing of a sale in your app"): a webhook endpoint, then a sale:`,
      `  npm run opentill -- webhook add --vendor ${demo.vendorId} --env sandbox --url http://localhost:3001/hooks`,
      `  npm run opentill -- sandbox purchase --vendor ${demo.vendorId} --product ${demo.productId} --email you@example.com --country DE`,
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * The only place that listens: migrate and seed a first start, serve, and close gracefully on SIGTERM.
 * A database that does not answer at start is waited for, listening meanwhile (docs/operations.md):
 * until it has started, the probes answer (alive, not ready) and every other request is told to
 * retry. `prepared`: a cluster's primary has migrated and seeded, and prints the banner itself.
 */
export async function startServer(
  config: Config,
  options: { prepared?: boolean; clusterMetrics?: ClusterMetrics; onReady?: () => void } = {},
) {
  const services = createServices(config);
  const startup = { ready: false };
  const app = await buildApp(services, { clusterMetrics: options.clusterMetrics, startup });
  app.server.keepAliveTimeout = 72_000;
  app.server.requestTimeout = 30_000;
  let stopping = false;
  let stopWork = async () => {};
  // In-flight requests finish; new connections are refused; the database closes last.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    stopping = true;
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await stopWork();
    await app.close();
    await services.close();
  });
  // Listening before the database answers only when it does not: a start that finds it serves at once, never answering "starting".
  let listening: Promise<unknown> | undefined;
  const listen = async () => {
    listening ??= app.listen({ host: config.host, port: config.port });
    await listening;
  };
  const started = await whenDatabaseAnswers(
    async () => {
      const demo = options.prepared ? await schemaMigrated(services) : await migrateAndSeed(services, config);
      await services.sandboxClock.refresh();
      return { demo };
    },
    { log: (message) => app.log.warn(message), stopping: () => stopping, onWaiting: listen },
  );
  if (!started) return { app, services, worker: undefined };
  startup.ready = true;
  await listen();
  options.onReady?.();

  if (!options.prepared) process.stdout.write(startBanner(config, started.demo));
  if (config.tightenedPermissions.length) {
    app.log.warn(
      { paths: config.tightenedPermissions },
      'removed group and other access from files opentill keeps (docs/decisions.md §11)',
    );
  }
  const failures = repeatedFailures((line) => app.log.error(line.details, line.message));
  const purge = schedulePurges(services, (what, err) => failures.report(`${what} purge failed`, err));
  const worker = config.billing.runInServer
    ? startBillingWorker(services, {
        intervalMs: config.billing.intervalSeconds * 1000,
        onReport: (report) => {
          app.metrics?.observeBilling(report);
          if (eventful(report)) app.log.info({ billing: report }, 'billing run');
        },
        onError: (err, loop) => failures.report(failedRun(loop), err),
      })
    : undefined;
  stopWork = async () => {
    clearInterval(purge);
    await worker?.stop();
    failures.stop();
  };
  return { app, services, worker };
}

/** Hourly: idempotency keys past their day, and the webhook log's settled events past 30 days. */
function schedulePurges(services: Services, onError: (what: string, err: unknown) => void) {
  const purge = () => {
    void services.idempotency.purgeExpired().catch((err) => onError('idempotency', err));
    void services.webhooks.purgeOld().catch((err) => onError('webhook log', err));
  };
  void purge();
  return setInterval(purge, 3600_000).unref();
}
