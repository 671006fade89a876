import { randomBytes } from 'node:crypto';
import type { NewVendor } from '../catalog/index.ts';
import type { Clock } from '../clock.ts';
import { AppError, invalidInput } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Vendor } from '../model.ts';
import type { PanelInviteService } from './panel-invites.ts';
import { sessionHash, type PasswordHasher } from './panel-secrets.ts';
import type { PanelUser, Store } from '../ports.ts';
import { requireEmail } from '../validation.ts';

/**
 * Vendor panel accounts: sign-up creates a vendor and its first user; passwords are hashed with
 * scrypt and a random salt (panel-secrets.ts); a session is a random 256-bit value the browser keeps
 * in a cookie and the store keeps only as a SHA-256, with its own anti-forgery token.
 *
 * Who may sign up is the operator's choice (PANEL_SIGNUP, docs/decisions.md §19): nobody (`closed`,
 * the default), the holder of an invitation (`invite`), or anyone (`open`), whose vendor then works in
 * the sandbox only until the operator enables production. An invited vendor reaches production: the
 * operator asked for it.
 */

export const PANEL_SESSION_MS = 12 * 3600_000;

export interface PanelSession {
  user: PanelUser;
  csrfToken: string;
  /** The SHA-256 of the cookie, as stored: what an admin session opened from here is bound to. */
  idHash: string;
  expiresAt: string;
}

/** PANEL_SIGNUP: who may make a vendor account in the panel. */
export type PanelSignUpMode = 'closed' | 'invite' | 'open';

const signUpClosed = () =>
  new AppError(
    'FORBIDDEN',
    'Sign-up is closed on this server: its operator makes vendor accounts (opentill vendor create, then opentill vendor invite --vendor <id> for a panel login).',
  );
const byInvitationOnly = () =>
  new AppError(
    'FORBIDDEN',
    'Sign-up here is by invitation only: ask the operator of this server for an invitation link (opentill vendor invite --email <address>).',
  );

function checkedPassword(password: string | undefined): string {
  const value = password ?? '';
  if (value.length < 10 || value.length > 200) throw invalidInput('Choose a password of 10 to 200 characters.');
  return value;
}

export interface PanelAccountDeps {
  store: Store;
  clock: Clock;
  signUp: PanelSignUpMode;
  passwords: PasswordHasher;
  /** A new vendor, checked, not stored (the catalog's). */
  newVendor: (input: NewVendor) => Vendor;
  invitations: Pick<PanelInviteService, 'checkSignUp'>;
}

/**
 * Stores the vendor and its first user in one database transaction. Undefined when the e-mail got a
 * login first (two sign-ups with one e-mail at once): the unique e-mail refused the second, and nothing of it is kept.
 */
async function createAccount(
  deps: Pick<PanelAccountDeps, 'store' | 'clock'>,
  vendor: Vendor,
  passwordHash: string,
): Promise<PanelUser | undefined> {
  const user: PanelUser = {
    id: newId('panelUser'),
    vendorId: vendor.id,
    email: vendor.email,
    passwordHash,
    createdAt: deps.clock.now().toISOString(),
  };
  try {
    await deps.store.transaction(async (repos) => {
      await repos.vendors.insert(vendor);
      await repos.panel.insertUser(user);
    });
  } catch (err) {
    if (await deps.store.panel.findUserByEmail(vendor.email)) return undefined;
    throw err;
  }
  return user;
}

/** Sign-up through an invitation: the account signs in with the invited e-mail, and reaches production. Its user, to sign in. */
async function invitedAccount(
  deps: PanelAccountDeps,
  token: string,
  input: { company?: string | undefined; password?: string | undefined },
): Promise<PanelUser> {
  const invitation = await deps.invitations.checkSignUp(token);
  if (invitation.status === 'invalid')
    throw new AppError(
      'NOT_FOUND',
      'This invitation is not valid: check that the whole link was copied, or ask the operator for a new one.',
    );
  const used = () =>
    new AppError('LINK_EXPIRED', 'This invitation has expired or was used already; ask the operator for a new one.');
  if (invitation.status !== 'valid') throw used();
  const password = checkedPassword(input.password);
  const vendor = deps.newVendor({ name: input.company ?? '', email: invitation.email, productionEnabled: true });
  const user = await createAccount(deps, vendor, await deps.passwords.hash(password));
  if (!user) throw used();
  return user;
}

export function panelAccountService(deps: PanelAccountDeps) {
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
    /** Who may sign up on this server (PANEL_SIGNUP). */
    signUpMode: deps.signUp,

    /**
     * Creates the vendor and its user and signs in: with an invitation (modes invite and open), or in
     * an open panel, where the vendor reaches the sandbox only. Closed, or without an invitation where
     * one is needed: FORBIDDEN, and nothing is made. An e-mail that already has an account gets the
     * same answer, a cookie, after the same password hashing, but the cookie opens no session: the
     * answer does not tell whether the e-mail was known, and nobody is signed in to an account by
     * signing up with its e-mail. The owner signs in as always (docs/decisions.md §19).
     */
    async signUp(input: {
      company?: string | undefined;
      email?: string | undefined;
      password?: string | undefined;
      invitation?: string | undefined;
    }): Promise<{ cookie: string }> {
      if (deps.signUp === 'closed') throw signUpClosed();
      if (input.invitation !== undefined) return startSession(await invitedAccount(deps, input.invitation, input));
      if (deps.signUp !== 'open') throw byInvitationOnly();
      const email = requireEmail(input.email ?? '');
      const password = checkedPassword(input.password);
      const known = await deps.store.panel.findUserByEmail(email);
      const passwordHash = await deps.passwords.hash(password);
      const silent = () => ({ cookie: randomBytes(32).toString('base64url') });
      if (known) return silent();
      const user = await createAccount(
        deps,
        deps.newVendor({ name: input.company ?? '', email, productionEnabled: false }),
        passwordHash,
      );
      return user ? startSession(user) : silent();
    },

    async signIn(input: { email?: string | undefined; password?: string | undefined }) {
      const user = input.email ? await deps.store.panel.findUserByEmail(input.email.trim()) : undefined;
      const ok = await deps.passwords.matches(input.password ?? '', user?.passwordHash);
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
