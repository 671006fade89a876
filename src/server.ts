import closeWithGrace from 'close-with-grace';
import type { Config } from './config.ts';
import { seedDemoIfEmpty } from './demo-seed.ts';
import { buildApp } from './http/app.ts';
import { createServices, type Services } from './services.ts';
import { eventful, startBillingWorker } from './worker.ts';

/** The only place that listens: migrate, seed a first start, serve, and close gracefully on SIGTERM. */
export async function startServer(config: Config) {
  const services = createServices(config);
  await services.maintenance.migrate();
  const demo = config.seedDemo ? await seedDemoIfEmpty(services) : undefined;
  await services.sandboxClock.refresh();
  const app = await buildApp(services);
  app.server.keepAliveTimeout = 72_000;
  app.server.requestTimeout = 30_000;
  await app.listen({ host: config.host, port: config.port });

  const store = config.databaseUrl
    ? 'PostgreSQL'
    : config.sqliteFile === ':memory:'
      ? 'SQLite in memory (nothing is kept when the process ends)'
      : `SQLite at ${config.sqliteFile}`;
  const lines = [`opentill is listening on ${config.baseUrl} (sandbox: ${config.sandboxUrl}), store: ${store}`, `API reference: ${config.baseUrl}/docs`];
  if (demo) {
    lines.push(
      '',
      'First start: a demo vendor with sandbox products and purchases was created.',
      `Sandbox API credential (shown only now): ${demo.credential.authorization}`,
      `Panel login (shown only now): ${config.baseUrl}/panel as ${demo.panel.email}, password ${demo.panel.password}`,
      'Try:',
      `  curl -H 'Authorization: ${demo.credential.authorization}' ${config.sandboxUrl}/v1/transactions/bob@example.com`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  if (config.tightenedPermissions.length) {
    app.log.warn({ paths: config.tightenedPermissions }, 'removed group and other access from files opentill keeps (docs/decisions.md §11)');
  }

  const purge = scheduleIdempotencyPurge(services, (err) => app.log.error({ err }, 'idempotency purge failed'));
  const worker = config.billing.runInServer
    ? startBillingWorker(services, {
        intervalMs: config.billing.intervalSeconds * 1000,
        onReport: (report) => {
          app.metrics?.observeBilling(report);
          if (eventful(report)) app.log.info({ billing: report }, 'billing run');
        },
        onError: (err) => app.log.error({ err }, 'billing run failed'),
      })
    : undefined;

  // In-flight requests finish; new connections are refused; the database closes last.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    clearInterval(purge);
    await worker?.stop();
    await app.close();
    await services.close();
  });
  return { app, services, worker };
}

function scheduleIdempotencyPurge(services: Services, onError: (err: unknown) => void) {
  const purge = () => services.idempotency.purgeExpired().catch(onError);
  void purge();
  return setInterval(purge, 3600_000).unref();
}
