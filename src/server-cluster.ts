import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { CLUSTER_WORKER_VARIABLE, type Config } from './config.ts';
import type { ClusterMetrics } from './http/operations-routes.ts';
import { prepareStore, startBanner, startServer } from './server.ts';

/** Marks a process the primary forked: it serves, and leaves migrating, seeding and the banner to the primary. */

/** A process that dies this soon after it started is failing to start, not failing under load. */
const EARLY_EXIT_MS = 5_000;

/**
 * `opentill serve --processes N`: N processes serving one port (node:cluster hands them the
 * connections), on PostgreSQL, which they share with nothing else in memory that must agree
 * (docs/decisions.md §11). The primary forks, migrates and seeds once (its processes wait for the
 * schema), restarts a process that dies, and on SIGTERM or SIGINT passes the signal on and waits for
 * every process to finish its requests.
 */
const ASK = 'opentill:metrics?';
/** What a process of the cluster tells the primary once it has started. */
const READY = 'opentill:ready';
const ANSWER = 'opentill:metrics';

/** In the primary: a process answering /metrics asks here, and gets every process's figures, summed (prom-client's aggregator). */
function answerMetrics() {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text }),
      (err: Error) => worker.send({ type: ANSWER, id: message.id, error: err.message }),
    );
  });
}

/** In a process of the cluster: asks the primary for every process's figures. */
function metricsFromPrimary(): ClusterMetrics {
  let asked = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  process.on('message', (message: { type?: string; id?: number; text?: string; error?: string }) => {
    if (message?.type !== ANSWER || message.id === undefined) return;
    const waiter = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(message.error));
    else waiter?.resolve(message.text ?? '');
  });
  return {
    everyProcess: () =>
      new Promise((resolve, reject) => {
        const id = ++asked;
        waiting.set(id, { resolve, reject });
        process.send!({ type: ASK, id });
        // prom-client gives up on a silent process after 5 s; this one does a little later.
        setTimeout(() => waiting.delete(id) && reject(new Error('the primary did not answer')), 6_000).unref();
      }),
  };
}

export async function serve(config: Config, processes: number): Promise<void> {
  if (cluster.isWorker && config.clusterWorker) {
    await startServer(config, {
      prepared: true,
      clusterMetrics: metricsFromPrimary(),
      onReady: () => process.send?.({ type: READY }),
    });
    return;
  }
  if (processes <= 1) {
    await startServer(config);
    return;
  }
  if (!config.databaseUrl)
    throw new Error(
      `SQLite is written by one process: --processes ${processes} needs PostgreSQL (set DATABASE_URL), or serve with one process.`,
    );

  answerMetrics();
  let stopping = false;
  let ready = 0;
  /** The primary's migration and seed: undefined until done (the processes serve "starting" meanwhile). */
  let prepared: { demo: Awaited<ReturnType<typeof prepareStore>> } | undefined;
  const banner = () => {
    if (prepared && ready === processes) process.stdout.write(startBanner(config, prepared.demo, processes));
  };
  const started = new Map<Worker, number>();
  const fork = () => {
    // A replacement due after SIGTERM came would serve on with nobody left to stop it.
    if (!stopping) started.set(cluster.fork({ [CLUSTER_WORKER_VARIABLE]: '1' }), Date.now());
  };
  // The banner once every process serves: the schema migrated, and each started (each waits for the database and the schema).
  cluster.on('message', (_worker, message: { type?: string }) => {
    if (message?.type === READY && ++ready === processes) banner();
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
  // The processes listen at once (alive, not ready) while the primary migrates and seeds, waiting for the database if it must.
  for (let i = 0; i < processes; i++) fork();
  try {
    prepared = { demo: await prepareStore(config) };
  } catch (err) {
    // A start that waiting cannot cure (a broken migration): the processes go with the primary.
    stopping = true;
    for (const worker of started.keys()) worker.process.kill('SIGKILL');
    throw err;
  }
  banner();
}
