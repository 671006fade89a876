import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_PASSWORD_HASH_COST } from './test-settings.ts';

/**
 * `opentill serve` as an operator runs it: a child process on a free port with a data directory of
 * its own (SQLite), spoken to over HTTP.
 */
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'opentill.js');
export const SERVER_SECRET = 'server-test-secret-0123456789-0123456789';

/** A free port: listen on port 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

export class ServerProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private waiters: (() => void)[] = [];

  /** `nodeArgs` go before the script, e.g. `--expose-gc`; `args` after `serve`; `env` over the defaults. */
  readonly port: number;
  constructor(
    port: number,
    dataDir: string,
    options: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv; args?: string[] } = {},
  ) {
    this.port = port;
    const inherited: NodeJS.ProcessEnv = { ...process.env };
    // What this process happens to have set is not the server's; what options.env sets is.
    for (const name of ['DATABASE_URL', 'NODE_OPTIONS', 'BASE_URL', 'SANDBOX_URL', 'SQLITE_FILE', 'OPENTILL_DEMO'])
      delete inherited[name];
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      OPENTILL_DATA_DIR: dataDir,
      OPENTILL_SECRET: SERVER_SECRET,
      LOG_LEVEL: 'info',
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      ...options.env,
    };
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, 'serve', ...(options.args ?? [])], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const notify = () => this.waiters.splice(0).forEach((w) => w());
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => ((this.stdout += chunk), notify()));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => ((this.stderr += chunk), notify()));
    this.exited = new Promise((done) => this.child.on('exit', (code, signal) => (notify(), done({ code, signal }))));
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid() {
    return this.child.pid!;
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once stdout matches; fails if the process exits first. */
  async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const match = this.stdout.match(pattern);
      if (match) return match;
      if (!this.running)
        assert.fail(`the server exited before printing ${pattern}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise<void>((done) => this.waiters.push(done));
    }
  }

  /** Waits for the start-up banner (written in one piece, after listening). */
  started() {
    return this.waitFor(/^API reference: .*\n(?:\nFirst start:[^]*curl .*\n)?/m);
  }

  signal(signal: NodeJS.Signals) {
    this.child.kill(signal);
  }

  /** Makes sure nothing is left running, whatever the test did. */
  async kill() {
    if (this.running) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** Bounds a wait so a hung process fails the test instead of hanging the run; not a timing assertion. */
export async function within<T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON log lines of stdout (the banner is plain text). */
export function logLines(stdout: string): Record<string, any>[] {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}
