import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Clock } from './clock.ts';
import { AppError, invalidInput } from './errors.ts';
import { newId } from './ids.ts';
import type { Vendor } from './model.ts';
import type { Store } from './ports.ts';
import { requireEmail } from './validation.ts';

/**
 * Vendor panel accounts: sign-up creates a vendor and its first user; passwords are hashed with
 * scrypt (N=2^15, r=8, p=1) and a random salt; a session is a random 256-bit value the browser keeps
 * in a cookie and the store keeps only as a SHA-256, with its own anti-forgery token.
 */
export interface PanelUser {
  id: string;
  vendorId: string;
  email: string;
  passwordHash: string;
  createdAt: string;
}

/** A signed-in browser as the store keeps it: only the hash of its cookie, and its anti-forgery token for forms. */
export interface StoredPanelSession {
  idHash: string;
  userId: string;
  csrfToken: string;
  expiresAt: string;
  createdAt: string;
}

export const PANEL_SESSION_MS = 12 * 3600_000;
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${(await derive(password, salt)).toString('base64url')}`;
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export const sessionHash = (id: string) => createHash('sha256').update(id).digest('hex');

export interface PanelSession {
  user: PanelUser;
  csrfToken: string;
  /** The SHA-256 of the cookie, as stored: what an admin session opened from here is bound to. */
  idHash: string;
  expiresAt: string;
}

/** A hash to compare against when the e-mail is unknown, so both answers take the same time. */
const NOBODY = hashPassword(randomBytes(16).toString('hex'));

export function panelAccountService(deps: { store: Store; clock: Clock; createVendor: (input: { name: string; email: string }) => Promise<Vendor> }) {
  async function startSession(user: PanelUser): Promise<{ cookie: string }> {
    const id = randomBytes(32).toString('base64url');
    const now = deps.clock.now();
    const csrfToken = randomBytes(24).toString('base64url');
    await deps.store.panel.insertSession({
      idHash: sessionHash(id),
      userId: user.id,
      csrfToken,
      expiresAt: new Date(now.getTime() + PANEL_SESSION_MS).toISOString(),
      createdAt: now.toISOString(),
    });
    return { cookie: id };
  }

  return {
    /**
     * Creates the vendor and its user and signs in. An e-mail that already has an account gets the
     * same answer, a cookie, after the same password hashing, but the cookie opens no session: the
     * answer does not tell whether the e-mail was known, and nobody is signed in to an account by
     * signing up with its e-mail. The owner signs in as always (docs/decisions.md §19).
     */
    async signUp(input: { company?: string | undefined; email?: string | undefined; password?: string | undefined }): Promise<{ cookie: string }> {
      const email = requireEmail(input.email ?? '');
      const password = input.password ?? '';
      if (password.length < 10 || password.length > 200) throw invalidInput('Choose a password of 10 to 200 characters.');
      const known = await deps.store.panel.findUserByEmail(email);
      const passwordHash = await hashPassword(password);
      if (known) return { cookie: randomBytes(32).toString('base64url') };
      const vendor = await deps.createVendor({ name: input.company ?? '', email });
      const user: PanelUser = {
        id: newId('panelUser'),
        vendorId: vendor.id,
        email,
        passwordHash,
        createdAt: deps.clock.now().toISOString(),
      };
      await deps.store.panel.insertUser(user);
      return startSession(user);
    },

    async signIn(input: { email?: string | undefined; password?: string | undefined }) {
      const user = input.email ? await deps.store.panel.findUserByEmail(input.email.trim()) : undefined;
      const ok = await passwordMatches(input.password ?? '', user?.passwordHash ?? (await NOBODY));
      if (!user || !ok) throw new AppError('UNAUTHORIZED', 'The e-mail or the password is wrong.');
      return startSession(user);
    },

    async session(cookie: string | undefined): Promise<PanelSession | undefined> {
      if (!cookie || cookie.length > 100) return undefined;
      const idHash = sessionHash(cookie);
      const found = await deps.store.panel.findSession(idHash, deps.clock.now().toISOString());
      return found && { user: found.user, csrfToken: found.csrfToken, idHash, expiresAt: found.expiresAt };
    },

    /** Ends the session, and with it every admin tool session it opened (docs/decisions.md §18). */
    async signOut(cookie: string | undefined): Promise<void> {
      if (!cookie) return;
      const idHash = sessionHash(cookie);
      const now = deps.clock.now().toISOString();
      await deps.store.transaction(async (repos) => {
        await repos.panel.deleteSession(idHash);
        await repos.adminSessions.revokeOpenedBy(idHash, now);
      });
    },
  };
}

export type PanelAccountService = ReturnType<typeof panelAccountService>;
