import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { OperatorUser, Store } from '../ports.ts';
import { requireEmail } from '../validation.ts';
import { sessionHash, type PasswordHasher } from './panel-secrets.ts';

/**
 * The operator's console (docs/decisions.md §26): logins of whoever runs this server, kept apart from
 * the vendors' panel users so that no vendor account, whatever it signs up with, is ever an operator.
 * Logins are made from the command line only (`opentill operator create`), with a generated password
 * shown once: a console that can approve vendors and pay them out has no sign-up page to attack.
 * Passwords and sessions are kept as the panel keeps them (scrypt, SHA-256 of the cookie).
 */

/** Shorter than a vendor's session: this one can suspend vendors and mark payouts paid. */
export const OPERATOR_SESSION_MS = 8 * 3600_000;

export interface OperatorSession {
  user: OperatorUser;
  csrfToken: string;
  expiresAt: string;
}

/** 24 random characters from an alphabet without look-alikes: about 139 bits, to be copied once. */
function generatedPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return [...randomBytes(24)].map((b) => alphabet[b % alphabet.length]).join('');
}

export function operatorAccountService(deps: { store: Store; clock: Clock; passwords: PasswordHasher }) {
  const { store, clock, passwords } = deps;
  return {
    /** A new login with a generated password, answered once; INVALID_STATE when the e-mail has one. */
    async create(email: string): Promise<{ user: OperatorUser; password: string }> {
      const password = generatedPassword();
      const user: OperatorUser = {
        id: newId('operator'),
        email: requireEmail(email).toLowerCase(),
        passwordHash: await passwords.hash(password),
        createdAt: clock.now().toISOString(),
      };
      if (!(await store.operators.insertUser(user)))
        throw new AppError(
          'INVALID_STATE',
          `${user.email} is an operator already; give it a new password with opentill operator password --email ${user.email}.`,
        );
      return { user, password };
    },

    /** A new generated password for a login, answered once; its sessions end. */
    async resetPassword(email: string): Promise<{ user: OperatorUser; password: string }> {
      const user = await store.operators.findUserByEmail(requireEmail(email));
      if (!user) throw new AppError('NOT_FOUND', `No operator signs in as ${email.trim()}.`);
      const password = generatedPassword();
      await store.operators.resetPassword(user.id, await passwords.hash(password));
      return { user, password };
    },

    list: () => store.operators.listUsers(),

    async signIn(input: { email?: string | undefined; password?: string | undefined }): Promise<{ cookie: string }> {
      const user = input.email ? await store.operators.findUserByEmail(input.email.trim()) : undefined;
      const ok = await passwords.matches(input.password ?? '', user?.passwordHash);
      if (!user || !ok) throw new AppError('UNAUTHORIZED', 'The e-mail or the password is wrong.');
      const cookie = randomBytes(32).toString('base64url');
      const now = clock.now();
      await store.operators.insertSession({
        idHash: sessionHash(cookie),
        userId: user.id,
        csrfToken: randomBytes(24).toString('base64url'),
        expiresAt: new Date(now.getTime() + OPERATOR_SESSION_MS).toISOString(),
        createdAt: now.toISOString(),
      });
      return { cookie };
    },

    async session(cookie: string | undefined): Promise<OperatorSession | undefined> {
      if (!cookie || cookie.length > 100) return undefined;
      const found = await store.operators.findSession(sessionHash(cookie), clock.now().toISOString());
      return found && { user: found.user, csrfToken: found.csrfToken, expiresAt: found.expiresAt };
    },

    async signOut(cookie: string | undefined): Promise<void> {
      if (cookie) await store.operators.deleteSession(sessionHash(cookie), clock.now().toISOString());
    },
  };
}

export type OperatorAccountService = ReturnType<typeof operatorAccountService>;
