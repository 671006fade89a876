import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_SECRET } from './seed.ts';

/**
 * The servers a bench measures, each in a child process of its own on 127.0.0.1: so the load
 * generator (this process) does not share their event loop, and each one's resident size is its own.
 */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Server {
  name: string;
  base: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The reference servers run TypeScript as the bench does: tsx under `npm run bench`, Node's own type stripping in the smoke test. */
const TYPESCRIPT = process.execArgv;

/** Starts `node <args>` and waits until its stdout says "listening <port>" or matches `ready`. */
async function startChild(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  port?: number,
): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const match = await new Promise<RegExpMatchArray>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within 60 s:\n${output}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = output.match(ready);
      if (found) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolvePromise(found);
      }
    });
  });
  // Keep draining its output so a chatty child never blocks on a full pipe.
  child.stdout!.resume();
  return { name, base: `http://127.0.0.1:${port ?? match[1]}`, pid: child.pid!, stop: () => stopChild(child) };
}

/** Where a bench's data lives: a SQLite file, or a PostgreSQL database URL. */
export type StoreLocation = { sqliteFile: string } | { databaseUrl: string };

/**
 * opentill exactly as `opentill serve` runs it (the billing worker included), with logging silenced
 * and the rate limits out of the way. `profileDir`: write a CPU profile there (--cpu-prof);
 * `serveArgs` follow `serve` (`--processes 2`).
 */
export async function startOpentill(
  store: StoreLocation,
  options: { profileDir?: string | undefined; env?: NodeJS.ProcessEnv; name?: string; serveArgs?: string[] } = {},
): Promise<Server> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const profile = options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : [];
  return startChild(
    options.name ?? 'opentill',
    [...profile, join(root, 'bin/opentill.js'), 'serve', ...(options.serveArgs ?? [])],
    {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      BASE_URL: base,
      SANDBOX_URL: `${base}/sandbox`,
      DATABASE_URL: 'databaseUrl' in store ? store.databaseUrl : '',
      SQLITE_FILE: 'sqliteFile' in store ? store.sqliteFile : join(tmpdir(), 'opentill-bench-unused.db'),
      OPENTILL_SECRET: BENCH_SECRET,
      OPENTILL_DATA_DIR: join(tmpdir(), 'opentill-bench-data'),
      OPENTILL_DEMO: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_CREDENTIAL: '100000000',
      RATE_LIMIT_PER_ADDRESS: '100000000',
      TRUST_PROXY: '',
      ...options.env,
    },
    /listening on/,
    port,
  );
}

/**
 * The lean reference server (bench/lean-server.ts) on the same store. `lookupsOnly`: an answers file
 * (as for `startBare`); the read by id then only checks the credential and looks up, answering the kept bytes.
 * `profileDir`: run it with --cpu-prof, its profile written there (to set beside opentill's).
 */
export function startLean(store: StoreLocation, lookupsOnly?: string, profileDir?: string): Promise<Server> {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return startChild(
    lookupsOnly ? 'lean lookups' : 'lean server',
    [...TYPESCRIPT, ...profile, join(root, 'bench/lean-server.ts')],
    {
      ...process.env,
      LEAN_SQLITE_FILE: 'sqliteFile' in store ? store.sqliteFile : '',
      LEAN_DATABASE_URL: 'databaseUrl' in store ? store.databaseUrl : '',
      OPENTILL_SECRET: BENCH_SECRET,
      LEAN_LOOKUPS_ONLY: lookupsOnly ?? '',
    },
    /listening (\d+)/,
  );
}

/** The bare node:http baseline (bench/bare-server.ts), answering the answers kept in `answersFile`. */
export function startBare(answersFile: string): Promise<Server> {
  return startChild(
    'bare node:http',
    [...TYPESCRIPT, join(root, 'bench/bare-server.ts')],
    { ...process.env, BENCH_ANSWERS: answersFile },
    /listening (\d+)/,
  );
}

/** The resident set size of a process in bytes (Linux /proc; undefined elsewhere or once it has gone). */
export function residentSize(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Samples a process's resident size every `everyMs` until stopped; returns the largest seen. */
export function sampleResidentSize(pid: number, everyMs = 200): { stop(): number | undefined } {
  let peak: number | undefined;
  const sample = () => {
    const now = residentSize(pid);
    if (now !== undefined && (peak === undefined || now > peak)) peak = now;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
