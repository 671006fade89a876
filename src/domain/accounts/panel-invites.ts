import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError, invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { PasswordHasher } from './panel-secrets.ts';
import type { PanelUser, Store } from '../ports.ts';
import { requireEmail } from '../validation.ts';

/**
 * One account for the CLI and the panel: a vendor made with `opentill vendor create` (or the demo
 * vendor) gets a panel login through a one-time link to set its password (`opentill vendor invite`).
 * The link is signed with the server secret and names the vendor, an expiry and the state of the
 * vendor's panel login when it was made; setting the password changes that state, so a link works once.
 *
 * With PANEL_SIGNUP=invite (or open), `opentill vendor invite --email` prints a sign-up invitation
 * instead: signed likewise (under a key of its own, so neither kind passes for the other), naming the
 * e-mail the new account signs in with and an expiry. It is spent once that e-mail has a panel login,
 * which the sign-up makes (docs/decisions.md §19).
 */
export const INVITE_MS = 24 * 3600_000;
/** A sign-up invitation goes to someone else, who may take a few days to open it. */
export const SIGNUP_INVITE_MS = 7 * 24 * 3600_000;

export type InviteCheck =
  { status: 'valid'; vendorId: string; email: string; vendorName: string } | { status: 'invalid' | 'expired' | 'used' };
export type SignUpInviteCheck =
  { status: 'valid'; email: string; expiresAt: string } | { status: 'invalid' | 'expired' | 'used' };

type InviteDeps = { store: Store; clock: Clock; secret: string; passwords: PasswordHasher };

/** Claims signed with the server secret under a key per purpose: `body.signature`, both base64url. */
function tokenSigner(secret: string) {
  const sign = (purpose: string, body: string) =>
    createHmac('sha256', `${secret}:${purpose}`).update(body).digest('base64url');
  return {
    seal(purpose: string, claims: object): string {
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${body}.${sign(purpose, body)}`;
    },
    /** The claims of a token this server signed for `purpose`, or undefined. */
    unseal(purpose: string, token: string): Record<string, unknown> | undefined {
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined || body.length > 500) return undefined;
      const expected = Buffer.from(sign(purpose, body));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      try {
        const claims: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
        return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export function panelInviteService(deps: InviteDeps) {
  const signer = tokenSigner(deps.secret);
  return { ...passwordLinks(deps, signer), ...signUpInvitations(deps, signer) };
}

/** The state of a vendor's panel login that a password link names: it changes when the password is set. */
const stateOf = (user: PanelUser | undefined) =>
  user ? createHash('sha256').update(`${user.id}:${user.passwordHash}`).digest('base64url').slice(0, 22) : 'none';

/** What a password link is worth now, and the login state it names when valid. */
async function checkPasswordLink(
  deps: InviteDeps,
  unseal: ReturnType<typeof tokenSigner>['unseal'],
  token: string,
): Promise<InviteCheck & { state?: string }> {
  const claims = unseal('panel-invite', token);
  if (!claims || typeof claims.v !== 'string' || typeof claims.e !== 'number' || typeof claims.s !== 'string')
    return { status: 'invalid' };
  if (claims.e <= deps.clock.now().getTime()) return { status: 'expired' };
  const vendor = await deps.store.vendors.find(claims.v);
  if (!vendor) return { status: 'invalid' };
  if (stateOf(await deps.store.panel.findUserByVendor(vendor.id)) !== claims.s) return { status: 'used' };
  return { status: 'valid', vendorId: vendor.id, email: vendor.email, vendorName: vendor.name, state: claims.s };
}

/** Sets (or first creates) the vendor's panel login: the vendor's e-mail and this password. */
async function setLogin(
  deps: InviteDeps,
  vendorId: string,
  email: string,
  password: string,
  expectedState?: string,
): Promise<void> {
  if (password.length < 10 || password.length > 200) throw invalidInput('Choose a password of 10 to 200 characters.');
  const passwordHash = await deps.passwords.hash(password);
  await deps.store.transaction(async (repos) => {
    const user = await repos.panel.findUserByVendor(vendorId);
    if (expectedState !== undefined && stateOf(user) !== expectedState)
      throw new AppError('LINK_EXPIRED', 'This link was used already; ask for a new one.');
    if (user) return repos.panel.updatePassword(user.id, passwordHash);
    const taken = await repos.panel.findUserByEmail(email);
    if (taken)
      throw new AppError(
        'INVALID_STATE',
        `${email} signs in to another vendor's panel already; give this vendor another e-mail first.`,
      );
    await repos.panel.insertUser({
      id: newId('panelUser'),
      vendorId,
      email,
      passwordHash,
      createdAt: deps.clock.now().toISOString(),
    });
  });
}

/** One-time links that set a vendor's panel password (`opentill vendor invite --vendor`), and the demo vendor's login. */
function passwordLinks(deps: InviteDeps, { seal, unseal }: ReturnType<typeof tokenSigner>) {
  const check = (token: string) => checkPasswordLink(deps, unseal, token);
  return {
    /** A one-time link token to set the vendor's panel password, valid for a day. */
    async issue(vendorId: string): Promise<{ token: string; expiresAt: string }> {
      const vendor = await deps.store.vendors.find(vendorId);
      if (!vendor) throw notFound(`Vendor ${vendorId}`);
      const expiresAt = deps.clock.now().getTime() + INVITE_MS;
      const token = seal('panel-invite', {
        v: vendor.id,
        e: expiresAt,
        s: stateOf(await deps.store.panel.findUserByVendor(vendor.id)),
      });
      return { token, expiresAt: new Date(expiresAt).toISOString() };
    },

    check: async (token: string): Promise<InviteCheck> => {
      const found = await check(token);
      return found.status === 'valid'
        ? { status: 'valid', vendorId: found.vendorId, email: found.email, vendorName: found.vendorName }
        : found;
    },

    /** Sets the password the link was for; a second use, or a link older than a day, changes nothing. */
    async accept(token: string, password: string): Promise<{ email: string }> {
      const found = await check(token);
      if (found.status === 'expired' || found.status === 'used')
        throw new AppError('LINK_EXPIRED', 'This link has expired or was used already; ask for a new one.');
      if (found.status !== 'valid') throw notFound('This invitation');
      await setLogin(deps, found.vendorId, found.email, password, found.state);
      return { email: found.email };
    },

    /** A panel login with a generated password, for the demo vendor of a first start: the password is shown once. */
    async createLogin(vendorId: string): Promise<{ email: string; password: string }> {
      const vendor = await deps.store.vendors.find(vendorId);
      if (!vendor) throw notFound(`Vendor ${vendorId}`);
      const password = randomBytes(12).toString('base64url');
      await setLogin(deps, vendor.id, vendor.email, password);
      return { email: vendor.email, password };
    },
  };
}

/** Sign-up invitations (`opentill vendor invite --email`): for one e-mail, a week, until that e-mail has a login. */
function signUpInvitations(deps: InviteDeps, { seal, unseal }: ReturnType<typeof tokenSigner>) {
  return {
    /** A sign-up invitation for this e-mail, valid for a week; refused for an e-mail that signs in already. */
    async issueSignUp(email: string): Promise<{ token: string; email: string; expiresAt: string }> {
      const address = requireEmail(email);
      if (await deps.store.panel.findUserByEmail(address))
        throw invalidState(`${address} signs in to a vendor's panel already.`);
      const expiresAt = deps.clock.now().getTime() + SIGNUP_INVITE_MS;
      return {
        token: seal('panel-signup-invite', { m: address, e: expiresAt }),
        email: address,
        expiresAt: new Date(expiresAt).toISOString(),
      };
    },

    /** Whether a sign-up invitation may be used now, and for which e-mail. */
    async checkSignUp(token: string): Promise<SignUpInviteCheck> {
      const claims = unseal('panel-signup-invite', token);
      if (!claims || typeof claims.m !== 'string' || typeof claims.e !== 'number') return { status: 'invalid' };
      if (claims.e <= deps.clock.now().getTime()) return { status: 'expired' };
      if (await deps.store.panel.findUserByEmail(claims.m)) return { status: 'used' };
      return { status: 'valid', email: claims.m, expiresAt: new Date(claims.e).toISOString() };
    },
  };
}

export type PanelInviteService = ReturnType<typeof panelInviteService>;
