import type { CardInput } from '../payments/index.ts';
import type { Environment, Scope } from '../model.ts';
import { cancel } from './cancellation.ts';
import { updateCard } from './card-change.ts';
import { completeCardSession, startCardSession } from './card-sessions.ts';
import { overview } from './management-page.ts';
import type { PortalDeps } from './portal-deps.ts';
import { managementUrl, sendManagementLink } from './management-links.ts';
import { openSignIn, requestSignIn, signInVendor } from './sign-in.ts';
import { authenticated, authenticationSession } from './renewal-authentication.ts';

export { canCancel } from './cancellation.ts';
export { canUpdateCard, type CardUpdate } from './card-change.ts';
export type { CardCompletion, CardSession } from './card-sessions.ts';
export type { PortalItem } from './management-page.ts';
export type { PortalDeps, PortalLetter, PortalMail } from './portal-deps.ts';
export type { LinkSent } from './management-links.ts';
export { SIGN_IN_MINUTES, type SignInRequest } from './sign-in.ts';
export type { Authentication, AwaitingAuthentication } from './renewal-authentication.ts';

/** The management page's use cases over one set of deps (see PortalDeps). */
export function customerPortalService(deps: PortalDeps) {
  return {
    overview: (scope: Scope, email: string) => overview(deps, scope, email),
    cancel: (scope: Scope, email: string, id: string) => cancel(deps, scope, email, id),
    updateCard: (scope: Scope, email: string, id: string, card: CardInput) => updateCard(deps, scope, email, id, card),
    startCardSession: (scope: Scope, email: string, id: string) => startCardSession(deps, scope, email, id),
    completeCardSession: (scope: Scope, email: string, id: string, cardSession: string) =>
      completeCardSession(deps, scope, email, id, cardSession),
    authenticationSession: (scope: Scope, email: string, id: string) => authenticationSession(deps, scope, email, id),
    authenticated: (scope: Scope, email: string, id: string) => authenticated(deps, scope, email, id),
    /**
     * E-mails the buyer of the vendor's transaction a link to their management page (the panel's
     * "Send management link"); `{status: 'OFF'}` without SMTP, when the panel offers `managementUrl` to copy.
     */
    sendManagementLink: (scope: Scope, transactionId: string) => sendManagementLink(deps, scope, transactionId),
    /** The management page's URL for a customer's e-mail, signed for a week (what "Copy link" copies). */
    managementUrl: (scope: Scope, email: string) => managementUrl(deps, scope, email),
    /** Sends a one-time sign-in link if the address bought from the vendor (docs/decisions.md §34). */
    requestSignIn: (scope: Scope, email: string, locale: string | null) => requestSignIn(deps, scope, email, locale),
    /** Uses a sign-in link once: the management page's URL, or undefined. */
    openSignIn: (environment: Environment, token: string) => openSignIn(deps, environment, token),
    signInVendor: (environment: Environment, token: string) => signInVendor(deps, environment, token),
    /** Whether sign-in by e-mail works here (SMTP is configured). */
    signInAvailable: () => deps.mail.enabled,
  };
}

export type CustomerPortalService = ReturnType<typeof customerPortalService>;
