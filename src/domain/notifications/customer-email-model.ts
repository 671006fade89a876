import { invalidInput } from '../errors.ts';
import {
  CUSTOMER_EMAIL_KINDS,
  type ChargeFrequency,
  type CustomerEmailKind,
  type Environment,
  type Vendor,
  type VendorEmailSettings,
  type Scope,
} from '../model.ts';
import { requireEmail } from '../validation.ts';

/**
 * What customer e-mails are made of (decisions §20): the facts an outbox row keeps, what the templates
 * show, what goes to the SMTP server and what it answers, and a vendor's settings. The outbox that
 * queues and sends them is customer-emails.ts.
 */

/** What an e-mail is about, kept with it; everything else is read when it is sent. */
export interface EmailFacts {
  transactionId: string;
  /** The ledger entry: the payment of a receipt or renewal, the refund of a refund. */
  entryId?: string | undefined;
  /** The date the e-mail speaks of: the trial's end, the renewal, the next try, the end of access. */
  date?: string | null | undefined;
  /** The amount of a failed or held renewal. */
  amount?: { currency: string; totalMinor: number } | undefined;
}

/** An event that sends an e-mail, as the change causing it reports it. */
export interface EmailEvent {
  kind: CustomerEmailKind;
  scope: Scope;
  /** Unique per event: a second event with the same key queues nothing. */
  key: string;
  facts: EmailFacts;
}

/** What the templates show: everything is already looked up and the links signed. */
export interface EmailView {
  kind: CustomerEmailKind;
  /** The buyer's language as the transaction keeps it; null (bought before it was kept) is English. */
  locale: string | null;
  environment: Environment;
  vendor: { name: string; supportEmail: string };
  product: string;
  frequency: ChargeFrequency;
  transactionId: string;
  /** The amounts of the payment or refund; for a failed or held renewal, only its total. */
  amounts: {
    currency: string;
    netMinor: number | null;
    taxMinor: number | null;
    totalMinor: number;
    taxName: string;
    taxRate: string | null;
  } | null;
  licenceKey: string | null;
  /** The invoice of a payment, or the credit note of a refund. */
  documentUrl: string | null;
  manageUrl: string;
  date: string | null;
  /** A subscription bought with a free trial (its receipt charges nothing yet). */
  trial: boolean;
  /** What each period costs after a trial, tax included; shown on a trial's receipt in the checkout's words. */
  recurring?: { currency: string; totalMinor: number } | null | undefined;
  /** A sandbox e-mail sent to the vendor instead: the customer it would have gone to. */
  meantFor?: string | undefined;
}

export interface ComposedEmail {
  subject: string;
  html: string;
  text: string;
}

export interface OutgoingEmail extends ComposedEmail {
  from: { name: string; address: string };
  replyTo: string;
  to: string;
  /** `<id@domain>`, the same on every try of one outbox row, so a duplicate is recognisable. */
  messageId: string;
}

/** The SMTP server's answer as a value: a refusal says whether trying again can help. */
export type SendResult = { status: 'SENT' } | { status: 'REFUSED'; permanent: boolean; reason: string };

/** The e-mail network: SMTP in production (src/mail/smtp-sender.ts) and in the tests (a loopback server). */
export interface EmailSender {
  /** `signal` aborts a send that ran out of time: the sender drops the connection it was waiting on. */
  send(email: OutgoingEmail, signal?: AbortSignal): Promise<SendResult>;
  close(): void;
}

export interface EmailReport {
  queued: number;
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
  /** The run stopped with e-mails still due (its time was up). */
  more: boolean;
}

/** What a vendor sets in the panel: '' clears the sender name or reply-to. */
export interface EmailSettingsInput {
  senderName?: string | null | undefined;
  replyTo?: string | null | undefined;
  off?: readonly string[] | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The e-mail settings checked: a sender name of at most 80 characters, a reply-to address, known kinds. */
export function emailSettings(input: EmailSettingsInput): VendorEmailSettings {
  const name = input.senderName?.trim() || null;
  if (name !== null && ([...name].length > 80 || CONTROL.test(name)))
    throw invalidInput('The sender name can have at most 80 characters, on one line.');
  const replyTo = input.replyTo?.trim() ? requireEmail(input.replyTo.trim(), 'Reply-to') : null;
  const off = [...new Set(input.off ?? [])];
  const unknown = off.filter((k) => !CUSTOMER_EMAIL_KINDS.includes(k as CustomerEmailKind));
  if (unknown.length > 0) throw invalidInput(`Unknown e-mail kind: ${unknown.join(', ')}.`);
  return { senderName: name, replyTo, off: CUSTOMER_EMAIL_KINDS.filter((k) => off.includes(k)) };
}

/** The address customers write to: the vendor's support e-mail, its reply-to, else its account e-mail. */
export const supportAddress = (vendor: Vendor) => vendor.supportEmail ?? vendor.emails.replyTo ?? vendor.email;

/** A sample's amounts: a payment's in full, a failed or held renewal's total only, none for a notice. */
function sampleAmounts(kind: CustomerEmailKind, paid: boolean): EmailView['amounts'] {
  if (paid) return { currency: 'EUR', netMinor: 4900, taxMinor: 980, totalMinor: 5880, taxName: 'VAT', taxRate: '0.2' };
  if (kind === 'PAYMENT_FAILED' || kind === 'ACTION_REQUIRED')
    return { currency: 'EUR', netMinor: null, taxMinor: null, totalMinor: 5880, taxName: 'VAT', taxRate: null };
  return null;
}

/** Sample data for previews and test e-mails: plausible, and obviously not a real customer's. */
export function sampleView(vendor: Vendor, kind: CustomerEmailKind, environment: Environment, base: string): EmailView {
  const inDays = (days: number) => new Date(Date.UTC(2030, 0, 15) + days * 86_400_000).toISOString();
  const paid = kind === 'RECEIPT' || kind === 'RENEWED' || kind === 'REFUNDED';
  return {
    kind,
    locale: null,
    environment,
    vendor: { name: vendor.name, supportEmail: supportAddress(vendor) },
    product: 'Example Pro',
    frequency: kind === 'RENEWAL_UPCOMING' ? 'YEARLY' : 'MONTHLY',
    transactionId: 'TC-TR_EXAMPLE',
    amounts: sampleAmounts(kind, paid),
    licenceKey: kind === 'RECEIPT' || kind === 'LICENCE_REISSUED' ? 'EXAMPLE-LICENCE-KEY' : null,
    documentUrl: paid ? `${base}/invoice/TC-BA_EXAMPLE` : null,
    manageUrl: `${base}/manage/example`,
    date:
      kind === 'RECEIPT' || kind === 'RENEWED' || kind === 'REFUNDED' || kind === 'LICENCE_REISSUED'
        ? null
        : inDays(kind === 'TRIAL_ENDING' ? 3 : 7),
    trial: false,
  };
}
