import { notFound } from '../errors.ts';
import type { Scope } from '../model.ts';
import { EMAIL_LINK_LIFETIME_SECONDS, supportAddress, type SendResult } from '../notifications/index.ts';
import type { PortalDeps } from './portal-deps.ts';

/** What sending a management link came to: sent (to whom), refused by the SMTP server, or e-mail is off. */
export type LinkSent = { status: 'SENT'; to: string } | { status: 'OFF' } | Extract<SendResult, { status: 'REFUSED' }>;

/** The management page's URL for a customer, signed for `lifetimeSeconds` (an e-mail's week by default). */
export function managementUrl(
  deps: Pick<PortalDeps, 'links' | 'urls' | 'clock'>,
  scope: Scope,
  email: string,
  lifetimeSeconds = EMAIL_LINK_LIFETIME_SECONDS,
): string {
  const token = deps.links.issue('manage', scope, email.toLowerCase(), deps.clock.real(), lifetimeSeconds);
  return `${deps.urls.base(scope.environment)}/manage/${token}`;
}

/**
 * E-mails the buyer of a transaction the link to their management page, in the language they bought
 * in (the panel's "Send management link"). Only the vendor's own transaction: another's is not found.
 * Sent at once, not through the outbox, so the panel can say what the SMTP server answered.
 */
export async function sendManagementLink(
  deps: Pick<PortalDeps, 'store' | 'links' | 'urls' | 'clock' | 'mail' | 'compose'>,
  scope: Scope,
  transactionId: string,
): Promise<LinkSent> {
  const transaction = await deps.store.transactions.find(scope, transactionId);
  const vendor = transaction && (await deps.store.vendors.find(scope.vendorId));
  if (!transaction || !vendor) throw notFound(`Transaction ${transactionId}`);
  if (!deps.mail.enabled) return { status: 'OFF' };
  const url = managementUrl(deps, scope, transaction.email);
  const sent = await deps.mail.sendNow(
    vendor,
    transaction.email,
    (meantFor) =>
      deps.compose({
        kind: 'MANAGE_LINK',
        locale: transaction.locale,
        environment: scope.environment,
        vendor: { name: vendor.name, supportEmail: supportAddress(vendor) },
        url,
        meantFor,
      }),
    scope.environment,
  );
  if (sent.status === 'SENT') return { status: 'SENT', to: transaction.email };
  return sent;
}
