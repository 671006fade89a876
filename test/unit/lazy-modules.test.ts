import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

/**
 * What a server loads before its first request (issue 38, memory). Each of these waits until it is
 * needed: pdfkit and its fonts for the first invoice or statement (src/http/invoice-routes.ts), Scalar's
 * 5 MB script for the first look at /docs (src/http/api-reference.ts), the GeoIP tables for the first
 * address located (src/geo/locate.ts), ioredis for REDIS_URL (src/http/shared-counts.ts), Stripe's SDK
 * for the first Stripe gateway, nodemailer for SMTP_URL. A process that builds the app and its services,
 * without those settings, records every module it resolves.
 */
const run = promisify(execFile);
const LAZY = ['pdfkit', 'fontkit', '@scalar/fastify-api-reference', 'geoip-country', 'ioredis', 'stripe', 'nodemailer'];

test('building the app loads none of the libraries that wait for their first use', async () => {
  const script = `
    const { registerHooks } = await import('node:module');
    const resolved = new Set();
    registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); resolved.add(found.url); return found; } });
    const { loadConfig } = await import('./src/config.ts');
    const { createServices } = await import('./src/services.ts');
    const { buildApp } = await import('./src/http/app.ts');
    const config = loadConfig({
      OPENTILL_SECRET: 'lazy-modules-secret-lazy-modules-secret-0123',
      OPENTILL_DATA_DIR: process.argv[1],
      BASE_URL: 'http://opentill.test',
      LOG_LEVEL: 'silent',
      SQLITE_FILE: ':memory:',
    });
    const services = createServices(config);
    await services.database.migrate();
    const app = await buildApp(services, { logger: false });
    await app.ready();
    await app.close();
    await services.database.close();
    console.log(JSON.stringify([...resolved]));
  `;
  const dir = mkdtempSync(join(tmpdir(), 'opentill-lazy-'));
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, dir], {
    cwd: new URL('../..', import.meta.url),
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
  const resolved = JSON.parse(stdout.trim().split('\n').pop()!) as string[];
  const packageOf = (url: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  const packages = new Set(resolved.map(packageOf).filter(Boolean));
  assert.ok(
    packages.has('fastify') && packages.has('better-sqlite3'),
    `the app's modules are recorded: ${[...packages]}`,
  );
  assert.deepEqual(
    LAZY.filter((name) => packages.has(name)),
    [],
  );
});
