import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';
import { prepareStore, startBanner, startServer } from './server.ts';

/** Marks a process the primary forked: it serves, and leaves migrating, seeding and the banner to the primary. */
const FORKED = 'OPENTILL_CLUSTER_WORKER';

/** A process that dies this soon after it started is failing to start, not failing under load. */
const EARLY_EXIT_MS = 5_000;

/**
 * `opentill serve --processes N`: N processes serving one port (node:cluster hands them the
 * connections), on PostgreSQL, which they share with nothing else in memory that must agree
 * (docs/decisions.md §11). The primary migrates and seeds once, forks, restarts a process that dies,
 * and on SIGTERM or SIGINT passes the signal on and waits for every process to finish its requests.
 */
export async function serve(config: Config, processes: number): Promise<void> {
  if (cluster.isWorker && process.env[FORKED] === '1') {
    await startServer(config, { prepared: true });
    return;
  }
  if (processes <= 1) {
    await startServer(config);
    return;
  }
  if (!config.databaseUrl)
    throw new Error(`SQLite is written by one process: --processes ${processes} needs PostgreSQL (set DATABASE_URL), or serve with one process.`);

  const demo = await prepareStore(config);
  let stopping = false;
  let listening = 0;
  const started = new Map<Worker, number>();
  const fork = () => started.set(cluster.fork({ [FORKED]: '1' }), Date.now());
  cluster.on('listening', () => {
    if (++listening === processes) process.stdout.write(startBanner(config, demo, processes));
  });
  cluster.on('exit', (worker, code, signal) => {
    const ranMs = Date.now() - (started.get(worker) ?? 0);
    started.delete(worker);
    if (stopping) {
      if (started.size === 0) process.exit(0);
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    process.stderr.write(`opentill: process ${worker.process.pid} exited (${how}); starting another\n`);
    // One that cannot even start is not restarted at full speed.
    setTimeout(fork, ranMs < EARLY_EXIT_MS ? 1_000 : 0);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (started.size === 0) process.exit(0);
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  for (let i = 0; i < processes; i++) fork();
}
