import type { CardInput } from '../payments/index.ts';
import type { Scope } from '../model.ts';
import { cancel } from './cancellation.ts';
import { updateCard } from './card-change.ts';
import { completeCardSession, startCardSession } from './card-sessions.ts';
import { overview } from './management-page.ts';
import type { PortalDeps } from './portal-deps.ts';
import { authenticated, authenticationSession } from './renewal-authentication.ts';

export { canCancel } from './cancellation.ts';
export { canUpdateCard, type CardUpdate } from './card-change.ts';
export type { CardCompletion, CardSession } from './card-sessions.ts';
export type { PortalItem } from './management-page.ts';
export type { PortalDeps } from './portal-deps.ts';
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
  };
}

export type CustomerPortalService = ReturnType<typeof customerPortalService>;
