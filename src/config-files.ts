import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// The files opentill keeps for itself (its data directory, the server secret), for src/config.ts
// (which alone reads the environment and passes it here).

const MIN_SECRET_LENGTH = 32;

/**
 * Takes group and other permissions away from a path opentill keeps (0755 becomes 0700, 0644 becomes
 * 0600), when this account owns it. Returns how it changed, or undefined when it is absent or already
 * private. A shared directory (sticky bit, like /tmp) is left alone.
 */
export function restrictToOwner(path: string): string | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.() || (stat.isDirectory() && stat.mode & 0o1000))
    return undefined;
  const mode = stat.mode & 0o700;
  chmodSync(path, mode);
  return `${path} (${(stat.mode & 0o777).toString(8)} -> ${mode.toString(8)})`;
}

/** The server secret: OPENTILL_SECRET, or one generated once and kept in the data directory. */
export function loadSecret(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.OPENTILL_SECRET) {
    if (env.OPENTILL_SECRET.length < MIN_SECRET_LENGTH)
      throw new Error(`OPENTILL_SECRET must have at least ${MIN_SECRET_LENGTH} characters.`);
    return env.OPENTILL_SECRET;
  }
  const file = resolve(dataDir, 'secret');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `The server secret in ${file} has ${secret.length} characters; it needs at least ${MIN_SECRET_LENGTH}, or hosted links and API passwords could be forged. ` +
          'Delete the file and opentill generates a new one at the next start (every API credential and hosted link made with the old secret stops working), ' +
          `or set OPENTILL_SECRET to a random value of ${MIN_SECRET_LENGTH} characters or more.`,
      );
    }
    return secret;
  }
  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
  }
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}
