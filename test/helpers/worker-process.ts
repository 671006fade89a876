import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'opentill.js');

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited, with its code (null when killed) and output. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `opentill worker --once --json` in a child process, on the store given by `store`. */
export function startWorkerProcess(store: { url?: string | undefined; file?: string | undefined }, env: Record<string, string> = {}): WorkerProcess {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    OPENTILL_SECRET: 'worker-test-secret-0123456789-0123456789',
    OPENTILL_DATA_DIR: join(ROOT, 'test-artifacts', 'worker-data'),
    BILLING_LEASE_SECONDS: '1',
    ...env,
  };
  delete childEnv.NODE_OPTIONS;
  delete childEnv.DATABASE_URL;
  if (store.url) childEnv.DATABASE_URL = store.url;
  if (store.file) childEnv.SQLITE_FILE = store.file;
  const child = spawn(process.execPath, [BIN, 'worker', '--once', '--json'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((done, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
  return { child, exited };
}
