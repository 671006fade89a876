import type { CardInput } from '../payments/index.ts';
import type { Environment, Scope } from '../model.ts';
import { editBilling, type BillingInput } from './billing-details.ts';
import { cancel, cancelNowAllowed, type PortalCancel } from './cancellation.ts';
import { updateCard } from './card-change.ts';
import { completeCardSession, startCardSession } from './card-sessions.ts';
import { overview } from './management-page.ts';
import { freeInstance } from './licence-instances.ts';
import type { PortalDeps } from './portal-deps.ts';
import { managementUrl, sendManagementLink } from './management-links.ts';
import { switchOptions, switchPlan } from './plan-switch.ts';
import { changeOwnSeats } from './seat-offer.ts';
import { openSignIn, requestSignIn, signInVendor } from './sign-in.ts';
import { authenticated, authenticationSession } from './renewal-authentication.ts';

export { canEditBilling, type BillingChange, type BillingInput } from './billing-details.ts';
export { canCancel, type PortalCancel } from './cancellation.ts';
export { canUpdateCard, type CardUpdate } from './card-change.ts';
export type { CardCompletion, CardSession } from './card-sessions.ts';
export type { PortalItem } from './management-page.ts';
export type { LicenceUse } from './licence-instances.ts';
export type { SeatOffer } from './seat-offer.ts';
export type { PortalDeps, PortalLetter, PortalMail } from './portal-deps.ts';
export type { LinkSent } from './management-links.ts';
export { canSwitchPlan, type SwitchOption } from './plan-switch.ts';
export { SIGN_IN_MINUTES, type SignInRequest } from './sign-in.ts';
export type { Authentication, AwaitingAuthentication } from './renewal-authentication.ts';

/** The management page's use cases over one set of deps (see PortalDeps). */
export function customerPortalService(deps: PortalDeps) {
  return {
    overview: (scope: Scope, email: string) => overview(deps, scope, email),
    /** Cancels at the period's end, or now when the customer chose it and the vendor allows it; keeps the reason. */
    cancel: (scope: Scope, email: string, id: string, choice?: PortalCancel) => cancel(deps, scope, email, id, choice),
    cancelNowAllowed: (vendorId: string) => cancelNowAllowed(deps, vendorId),
    /** Frees one activation of the customer's licence key (docs/decisions.md §40). */
    freeInstance: (scope: Scope, email: string, id: string, instanceId: string) =>
      freeInstance(deps, scope, email, id, instanceId),
    setCancelNow: (vendorId: string, allowed: boolean) => deps.store.portal.setCancelNow(vendorId, allowed),
    /** Whether customers may change their seats on the management page, and the customer's own change (§39). */
    customerSeats: (vendorId: string) => deps.store.portal.customerSeats(vendorId),
    setCustomerSeats: (vendorId: string, allowed: boolean) => deps.store.portal.setCustomerSeats(vendorId, allowed),
    changeOwnSeats: (scope: Scope, email: string, id: string, quantity: unknown) =>
      changeOwnSeats(deps, scope, email, id, quantity),
    editBilling: (scope: Scope, email: string, id: string, input: BillingInput) =>
      editBilling(deps, scope, email, id, input),
    switchOptions: (scope: Scope, email: string, id: string) => switchOptions(deps, scope, email, id),
    switchPlan: (scope: Scope, email: string, id: string, productId: string) =>
      switchPlan(deps, scope, email, id, productId),
    /** The plans a product's subscribers may switch to (the panel's product form). */
    switchesOf: (scope: Scope, productId: string) => deps.store.portal.switchesOf(scope, productId),
    setSwitches: (scope: Scope, productId: string, to: readonly string[]) => setSwitches(deps, scope, productId, to),
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

/** The vendor's choice of plans for a product: its own subscription products, never itself. */
async function setSwitches(deps: Pick<PortalDeps, 'store'>, scope: Scope, productId: string, to: readonly string[]) {
  const own = [];
  for (const id of new Set(to)) {
    const product = id === productId ? undefined : await deps.store.products.find(scope, id);
    if (product?.type === 'SUBSCRIPTION') own.push(product.id);
  }
  await deps.store.portal.setSwitches(scope, productId, own);
  return own;
}

export type CustomerPortalService = ReturnType<typeof customerPortalService>;
