import { join } from 'node:path';
import { ROOT, spawnCli, type CliResult } from './cli.ts';

/** `opentill worker --once --json` in a child process, on the store given by `store`. */
export function startWorkerProcess(
  store: { url?: string | undefined; file?: string | undefined },
  env: Record<string, string> = {},
): ReturnType<typeof spawnCli> {
  return spawnCli(['worker', '--once', '--json'], {
    OPENTILL_SECRET: 'worker-test-secret-0123456789-0123456789',
    OPENTILL_DATA_DIR: join(ROOT, 'test-artifacts', 'worker-data'),
    BILLING_LEASE_SECONDS: '1',
    ...(store.url ? { DATABASE_URL: store.url } : {}),
    ...(store.file ? { SQLITE_FILE: store.file } : {}),
    ...env,
  });
}

export type { CliResult };
