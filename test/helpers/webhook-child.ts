/**
 * A child process for the SIGKILL test of webhooks: it opens the test's database and runs the webhook
 * outbox until nothing is due, over loopback to the test's receiver, with short leases and retries.
 * It pauses a random moment around each try so a kill from outside lands anywhere: before the POST,
 * while the receiver takes its time, after the answer and before the outbox heard. It can also kill
 * itself right after the receiver accepted its n-th try (`killAfterAccept`), the window where an event goes twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import type { WebhookTransport } from '../../src/domain/webhooks/index.ts';
import { webhookTransport } from '../../src/outbound/webhook-transport.ts';
import { createServices } from '../../src/services.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';
import { SECRET } from './webhook-world.ts';

export interface WebhookChildJob {
  url?: string | undefined;
  file?: string | undefined;
  leaseMs: number;
  pauseMs?: number;
  killAfterAccept?: number;
  concurrency?: number;
  timeoutMs?: number;
}

const job = JSON.parse(process.argv[2]!) as WebhookChildJob;
const database = job.url ? openPostgres(job.url, 4) : openSqlite(job.file!);
const config = loadConfig({
  OPENTILL_SECRET: SECRET,
  OPENTILL_DATA_DIR: '/tmp/opentill-webhook-child',
  LOG_LEVEL: 'silent',
});
const pause = () => (job.pauseMs ? sleep(Math.random() * job.pauseMs) : Promise.resolve());
const network = webhookTransport();
let n = 0;
const transport: WebhookTransport = {
  resolve: network.resolve,
  async post(request) {
    await pause();
    const response = await network.post(request);
    if (response.status === 200 && n++ === job.killAfterAccept) process.kill(process.pid, 'SIGKILL');
    await pause();
    process.stdout.write(`tried ${response.status}\n`);
    return response;
  },
};
const services = createServices(config, {
  database,
  webhooks: {
    transport,
    options: {
      leaseMs: job.leaseMs,
      batchSize: 4,
      concurrency: job.concurrency ?? 3,
      timeoutMs: job.timeoutMs ?? 400,
      retryDelaysMs: [50, 100, 200],
    },
  },
});
const report = await services.webhooks.runDue();
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await services.close();
