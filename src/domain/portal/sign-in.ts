import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '../model.ts';
import { supportAddress } from '../notifications/index.ts';
import { requireEmail } from '../validation.ts';
import { managementUrl } from './management-links.ts';
import type { PortalDeps } from './portal-deps.ts';

/**
 * Sign-in by e-mail (docs/decisions.md §34). A customer types the address they paid with and gets a
 * one-time link, if that address bought something from this vendor; the answer is the same either
 * way, and nothing is sent to an address with no purchase, so the page tells nobody who bought.
 * The link is kept only as its SHA-256, works once, within SIGN_IN_MINUTES, and opens the
 * management page for an hour.
 */
export const SIGN_IN_MINUTES = 30;
/** A second press of the button (a double click, a retry) this soon after the first opens the page too. */
const SECOND_PRESS_MS = 60_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** What asking for a link came to, for the caller's log and tests; the customer is told the same in every case but OFF. */
export type SignInRequest = 'SENT' | 'NO_PURCHASES' | 'OFF' | 'REFUSED';

/** Sends a one-time sign-in link to `email` if it bought from the vendor (the caller answers before this finishes). */
export async function requestSignIn(
  deps: Pick<PortalDeps, 'store' | 'clock' | 'urls' | 'mail' | 'compose'>,
  scope: Scope,
  email: string,
  locale: string | null,
): Promise<SignInRequest> {
  if (!deps.mail.enabled) return 'OFF';
  const address = requireEmail(email).toLowerCase();
  const vendor = await deps.store.vendors.find(scope.vendorId);
  const bought = vendor && (await deps.store.transactions.listByEmail(scope, address)).length > 0;
  if (!vendor || !bought) return 'NO_PURCHASES';
  const now = deps.clock.real();
  const token = randomBytes(32).toString('base64url');
  await deps.store.portal.deleteExpiredSignIns(now.toISOString());
  await deps.store.portal.insertSignIn({
    tokenHash: hashOf(token),
    scope,
    email: address,
    expiresAt: new Date(now.getTime() + SIGN_IN_MINUTES * 60_000).toISOString(),
    createdAt: now.toISOString(),
  });
  const url = `${deps.urls.base(scope.environment)}/manage/open/${token}${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`;
  const sent = await deps.mail.sendNow(
    vendor,
    address,
    (meantFor) =>
      deps.compose({
        kind: 'SIGN_IN',
        locale,
        environment: scope.environment,
        vendor: { name: vendor.name, supportEmail: supportAddress(vendor) },
        url,
        meantFor,
      }),
    scope.environment,
  );
  return sent.status === 'SENT' ? 'SENT' : 'REFUSED';
}

/**
 * Opens a sign-in link once: the management page's URL (an hour), or undefined when the link is
 * unknown, used, expired or of another environment. A link of another environment is not used up.
 */
export async function openSignIn(
  deps: Pick<PortalDeps, 'store' | 'clock' | 'links' | 'urls'>,
  environment: Scope['environment'],
  token: string,
): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const found = await deps.store.portal.findSignIn(hashOf(token));
  if (!found || found.scope.environment !== environment) return undefined;
  const now = deps.clock.real();
  const used = await deps.store.portal.useSignIn(hashOf(token), now.toISOString());
  if (used) return managementUrl(deps, used.scope, used.email, 3600);
  // The same press sent twice: the first used it a moment ago, so the second lands where the first did.
  const usedAt = found.usedAt ? Date.parse(found.usedAt) : NaN;
  if (now.getTime() - usedAt < SECOND_PRESS_MS) return managementUrl(deps, found.scope, found.email, 3600);
  return undefined;
}

/** The vendor a sign-in link was for, used or not, so a page can offer a new one. */
export async function signInVendor(
  deps: Pick<PortalDeps, 'store'>,
  environment: Scope['environment'],
  token: string,
): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const found = await deps.store.portal.findSignIn(hashOf(token));
  return found?.scope.environment === environment ? found.scope.vendorId : undefined;
}
