import { spawn } from 'node:child_process';

/**
 * A test's TypeScript child process (Node strips the types, as for the tests) given one JSON argument, for the SIGKILL tests:
 * its output collected, its exit awaited, and how many lines it printed that start with a word
 * (`done`, `sent`), which is how a child reports progress.
 */
export function runScript(path: string, job: unknown) {
  const child = spawn(process.execPath, [path, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })),
  );
  return { child, exited, lines: (word: string) => (stdout.match(new RegExp(`^${word} `, 'gm')) ?? []).length };
}
