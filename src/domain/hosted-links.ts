import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Environment, Scope } from './model.ts';

/**
 * Temporary, unforgeable URLs of hosted pages: a token that signs purpose, vendor, environment,
 * subject and expiry with the server secret. Nothing is stored; changing the secret voids them all.
 */
/** `admin-session`: what an opened admin link becomes, so the tool stays usable after the link's 15 minutes. */
export type LinkPurpose = 'manage' | 'admin' | 'admin-session';

export const LINK_LIFETIME_SECONDS: Record<LinkPurpose, number> = { manage: 3600, admin: 900, 'admin-session': 8 * 3600 };

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
    issue(purpose: LinkPurpose, scope: Scope, subject: string, now: Date): string {
      const claims: LinkClaims = {
        purpose,
        vendorId: scope.vendorId,
        environment: scope.environment,
        subject,
        expiresAt: Math.floor(now.getTime() / 1000) + LINK_LIFETIME_SECONDS[purpose],
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
