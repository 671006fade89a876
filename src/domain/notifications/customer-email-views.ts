import type { HostedLinks } from '../hosted-links.ts';
import type { Environment, LedgerEntry, Vendor } from '../model.ts';
import { supportAddress, type EmailFacts, type EmailView } from './customer-email-model.ts';
import type { OutboxEmail, Store } from '../ports.ts';

/**
 * What a queued customer e-mail says (decisions §20): its view, read from the transaction and the
 * ledger as they are when it is sent, and whom it goes to. Composing the view into a message is
 * src/mail's; sending it is deliver-email.ts's.
 */

/** A link in an e-mail opens the management page for this long: e-mails are read days later. */
export const EMAIL_LINK_LIFETIME_SECONDS = 7 * 86_400;
/** Notices go out this long before the charge they announce. */
export const TRIAL_NOTICE_MS = 3 * 86_400_000;

interface ViewDeps {
  store: Store;
  links: HostedLinks;
  urls: { base(environment: Environment): string };
  /** Where sandbox e-mails go: the vendor's own address (the default), or the sandbox's customers. */
  sandboxTo?: 'vendor' | 'customers' | undefined;
}

/** What an e-mail shows of money: its ledger entry in full, else a failed or held renewal's total, else nothing. */
function amountsOf(entry: LedgerEntry | undefined, facts: EmailFacts, taxName: string): EmailView['amounts'] {
  if (entry)
    return {
      currency: entry.currency,
      netMinor: Math.abs(entry.netMinor),
      taxMinor: Math.abs(entry.taxMinor),
      totalMinor: Math.abs(entry.amountTotalMinor),
      taxName,
      taxRate: entry.taxRate,
    };
  if (facts.amount)
    return {
      currency: facts.amount.currency,
      netMinor: null,
      taxMinor: null,
      totalMinor: facts.amount.totalMinor,
      taxName,
      taxRate: null,
    };
  return null;
}

export async function viewOf(
  deps: ViewDeps,
  email: OutboxEmail,
  vendor: Vendor,
): Promise<{ view: EmailView; to: string; shortTrial: boolean } | undefined> {
  const { scope, facts } = email;
  const transaction = await deps.store.transactions.find(scope, facts.transactionId);
  if (!transaction) return undefined;
  const entries = await deps.store.entries.listForTransaction(transaction.id);
  const entry = facts.entryId ? entries.find((e) => e.id === facts.entryId) : undefined;
  const base = deps.urls.base(scope.environment);
  // Signed as of the queueing, so every try of one message carries the same link (and bytes).
  const token = deps.links.issue(
    'manage',
    scope,
    transaction.email.toLowerCase(),
    new Date(email.createdAt),
    EMAIL_LINK_LIFETIME_SECONDS,
  );
  const amounts = amountsOf(entry, facts, transaction.taxName);
  // The sandbox's customers are made up with test cards by whoever signed up: their e-mails go to the vendor.
  const toVendor = scope.environment === 'sandbox' && (deps.sandboxTo ?? 'vendor') === 'vendor';
  const licenceKey =
    email.kind === 'RECEIPT' || email.kind === 'LICENCE_REISSUED'
      ? ((await deps.store.licences.keyOf(scope, transaction.id)) ?? null)
      : null;
  return {
    to: toVendor ? vendor.email : transaction.email,
    shortTrial:
      email.kind === 'TRIAL_ENDING' &&
      Date.parse(facts.date ?? '') - Date.parse(transaction.createdAt) <= TRIAL_NOTICE_MS,
    view: {
      kind: email.kind,
      locale: transaction.locale ?? null,
      environment: scope.environment,
      vendor: { name: vendor.name, supportEmail: supportAddress(vendor) },
      product: transaction.productName,
      frequency: transaction.chargeFrequency,
      transactionId: transaction.id,
      amounts,
      licenceKey,
      documentUrl: entry ? `${base}/invoice/${entry.hashId}` : null,
      manageUrl: `${base}/manage/${token}`,
      date: facts.date ?? null,
      trial: email.kind === 'RECEIPT' && !entry && transaction.status === 'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
      recurring: { currency: transaction.currency, totalMinor: transaction.netMinor + transaction.taxMinor },
      meantFor: toVendor ? transaction.email : undefined,
    },
  };
}
