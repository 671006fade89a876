import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { VendorClock } from './clock.ts';
import type { Environment, Scope } from './model.ts';
import { notFound } from './errors.ts';
import type { Store } from './ports.ts';
import { productionNotEnabled, reaches } from './production-access.ts';

/**
 * Temporary, unforgeable URLs of hosted pages: a token that signs purpose, vendor, environment,
 * subject and expiry with the server secret. Links are not stored; changing the secret voids them
 * all. An admin session (what an opened admin link becomes) is also stored, so that it can end
 * early: see `adminSessionService` below.
 */
/** `admin-session`: what an opened admin link becomes, so the tool stays usable after the link's 15 minutes. */
export type LinkPurpose = 'manage' | 'admin' | 'admin-session';

export const LINK_LIFETIME_SECONDS: Record<LinkPurpose, number> = {
  manage: 3600,
  admin: 900,
  'admin-session': 8 * 3600,
};

export interface LinkClaims {
  purpose: LinkPurpose;
  vendorId: string;
  environment: Environment;
  subject: string;
  expiresAt: number;
}

export type LinkCheck = { status: 'valid'; claims: LinkClaims } | { status: 'expired' } | { status: 'invalid' };

export function hostedLinks(secret: string) {
  const sign = (body: string) => createHmac('sha256', `${secret}:hosted-link`).update(body).digest('base64url');

  return {
    /** A link's lifetime is its purpose's, unless given (a management link in an e-mail lasts days). */
    issue(
      purpose: LinkPurpose,
      scope: Scope,
      subject: string,
      now: Date,
      lifetimeSeconds = LINK_LIFETIME_SECONDS[purpose],
    ): string {
      const claims: LinkClaims = {
        purpose,
        vendorId: scope.vendorId,
        environment: scope.environment,
        subject,
        expiresAt: Math.floor(now.getTime() / 1000) + lifetimeSeconds,
      };
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `${body}.${sign(body)}`;
    },

    /** The anti-forgery token of the forms on the page a link opens: bound to that link, unguessable without the secret. */
    formToken(token: string): string {
      return createHmac('sha256', `${secret}:form`).update(token).digest('base64url');
    },

    formTokenMatches(token: string, given: string): boolean {
      const expected = Buffer.from(this.formToken(token));
      const actual = Buffer.from(given);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },

    check(token: string, purpose: LinkPurpose, now: Date): LinkCheck {
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined) return { status: 'invalid' };
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { status: 'invalid' };
      let claims: LinkClaims;
      try {
        claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as LinkClaims;
      } catch {
        return { status: 'invalid' };
      }
      if (claims.purpose !== purpose) return { status: 'invalid' };
      if (claims.expiresAt * 1000 <= now.getTime()) return { status: 'expired' };
      return { status: 'valid', claims };
    },
  };
}

export type HostedLinks = ReturnType<typeof hostedLinks>;

/** The panel session an admin session is opened from: it may not outlive it. */
export interface OpeningPanelSession {
  idHash: string;
  expiresAt: string;
}

export type AdminSessionCheck = { status: 'valid'; scope: Scope } | { status: 'ended' } | { status: 'invalid' };

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Sessions of the admin tool (docs/decisions.md §18). The token stays in the path (a cross-site
 * iframe gets no cookies) and stays signed, so a forged or expired one is refused without a query;
 * the store keeps its hash, checked on every request, so that a session can end before its 8 hours:
 * when the panel session that opened it signs out (or expires), or when the vendor revokes all
 * sessions of an environment.
 */
export function adminSessionService(deps: {
  store: Pick<Store, 'adminSessions' | 'vendors'>;
  clock: Pick<VendorClock, 'real'>;
  links: HostedLinks;
}) {
  /** Production's admin tool is only for a vendor that reaches production: FORBIDDEN otherwise, saying why. */
  async function requireReach(scope: Scope) {
    if (scope.environment === 'sandbox') return;
    const vendor = await deps.store.vendors.find(scope.vendorId);
    if (!vendor) throw notFound(`Vendor ${scope.vendorId}`);
    if (!reaches(vendor, scope.environment)) throw productionNotEnabled(vendor.id);
  }

  async function open(scope: Scope, openedBy: OpeningPanelSession | null): Promise<string> {
    await requireReach(scope);
    const now = deps.clock.real();
    // The subject is random so that every session has its own token (and hash), even within one second.
    const token = deps.links.issue('admin-session', scope, randomBytes(16).toString('base64url'), now);
    const signedUntil = (Math.floor(now.getTime() / 1000) + LINK_LIFETIME_SECONDS['admin-session']) * 1000;
    const until = openedBy ? Math.min(signedUntil, Date.parse(openedBy.expiresAt)) : signedUntil;
    await deps.store.adminSessions.deleteExpired(scope, now.toISOString());
    await deps.store.adminSessions.insert({
      idHash: tokenHash(token),
      vendorId: scope.vendorId,
      environment: scope.environment,
      openedBy: openedBy?.idHash ?? null,
      expiresAt: new Date(until).toISOString(),
      revokedAt: null,
      createdAt: now.toISOString(),
    });
    return token;
  }

  return {
    /** Opens a session from the signed-in vendor panel; it ends at the latest with that panel session. */
    openFromPanel: (scope: Scope, panelSession: OpeningPanelSession) => open(scope, panelSession),

    /** Opens a session from a generate-url-to-admin link of this environment (15 minutes to open). */
    async openFromLink(
      link: string,
      environment: Environment,
    ): Promise<{ status: 'opened'; token: string } | { status: 'expired' } | { status: 'invalid' }> {
      const check = deps.links.check(link, 'admin', deps.clock.real());
      if (check.status !== 'valid') return check;
      if (check.claims.environment !== environment) return { status: 'invalid' };
      return { status: 'opened', token: await open({ vendorId: check.claims.vendorId, environment }, null) };
    },

    /** The session's vendor scope, if the token is genuine, of this environment, unexpired and not revoked. */
    async check(token: string, environment: Environment): Promise<AdminSessionCheck> {
      const now = deps.clock.real();
      const signed = deps.links.check(token, 'admin-session', now);
      if (signed.status === 'expired') return { status: 'ended' };
      if (signed.status === 'invalid' || signed.claims.environment !== environment) return { status: 'invalid' };
      const stored = await deps.store.adminSessions.find(tokenHash(token));
      if (!stored || stored.vendorId !== signed.claims.vendorId || stored.environment !== environment)
        return { status: 'invalid' };
      if (stored.revokedAt !== null || stored.expiresAt <= now.toISOString()) return { status: 'ended' };
      // Sign-out revokes what its session opened; this also covers a session opened while it signed out.
      if (stored.openedBy !== null && !stored.openerSignedIn) return { status: 'ended' };
      const scope = { vendorId: stored.vendorId, environment };
      await requireReach(scope);
      return { status: 'valid', scope };
    },

    /** Ends every live admin session of the vendor in this environment; answers how many. */
    revokeAll: (scope: Scope) => deps.store.adminSessions.revokeAll(scope, deps.clock.real().toISOString()),
  };
}

export type AdminSessionService = ReturnType<typeof adminSessionService>;
