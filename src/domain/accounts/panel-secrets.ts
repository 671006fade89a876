import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * How the panel keeps its secrets: a password as an scrypt hash with a random salt, written
 * `scrypt$N$r$p$salt$hash`, a session cookie as its SHA-256. Apart from the accounts so that
 * invitations and flashes use them too.
 *
 * New hashes take the configured cost (PASSWORD_HASH_COST, log2 of N: 15 by default, N=32768, r=8,
 * p=1); a stored hash is checked with the N, r and p written in it, so changing the cost locks no one
 * out (docs/decisions.md §44).
 */

/** log2 of N that a stored hash may name: what a server can derive in the memory it allows. */
export const PASSWORD_COSTS = { min: 10, max: 17, standard: 15 } as const;

const R = 8;
const P = 1;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses past 32 MiB unless told.
  const maxmem = 256 * options.N! * options.r!;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, 32, { ...options, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** N, r and p of a stored hash, or undefined when it names a scheme or a cost this server does not derive. */
function storedOptions(N: string | undefined, r: string | undefined, p: string | undefined): ScryptOptions | undefined {
  const [n, rr, pp] = [N, r, p].map(Number) as [number, number, number];
  const log2 = Math.log2(n);
  if (!Number.isInteger(log2) || log2 < PASSWORD_COSTS.min || log2 > PASSWORD_COSTS.max) return undefined;
  if (!Number.isInteger(rr) || rr < 1 || rr > 16 || !Number.isInteger(pp) || pp < 1 || pp > 4) return undefined;
  return { N: n, r: rr, p: pp };
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether `password` is the one `stored` was made from. With no stored hash (an unknown e-mail),
   * false after the same work as a real check, so the answer's time does not tell the e-mail was unknown.
   */
  matches(password: string, stored: string | undefined): Promise<boolean>;
}

/** Hashes new passwords at 2^`cost` (PASSWORD_COSTS's range), and checks any stored hash at its own cost. */
export function passwordHasher(cost: number = PASSWORD_COSTS.standard): PasswordHasher {
  const own: ScryptOptions = { N: 2 ** cost, r: R, p: P };
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, own);
      return `scrypt$${own.N}$${own.r}$${own.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async matches(password, stored) {
      if (stored === undefined) {
        await derive(password, randomBytes(16), own);
        return false;
      }
      const [scheme, N, r, p, salt, hash] = stored.split('$');
      const options = storedOptions(N, r, p);
      if (scheme !== 'scrypt' || !options || !salt || !hash) return false;
      const expected = Buffer.from(hash, 'base64url');
      const actual = await derive(password, Buffer.from(salt, 'base64url'), options);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}

export const sessionHash = (id: string) => createHash('sha256').update(id).digest('hex');
