import type { VendorClock } from '../clock.ts';
import type { HostedLinks } from '../hosted-links.ts';
import type { Environment } from '../model.ts';
import type { ComposedEmail, EmailSender, EmailView } from './customer-email-model.ts';
import type { Store } from '../ports.ts';

export interface CustomerEmailDeps {
  store: Store;
  clock: VendorClock;
  /** Undefined when SMTP is not configured: nothing is queued or sent. */
  sender: EmailSender | undefined;
  /** SMTP_FROM: the address every e-mail is sent from. */
  from: string | undefined;
  /** Where sandbox e-mails go: the vendor's own address (the default), or the sandbox's customers. */
  sandboxTo?: 'vendor' | 'customers' | undefined;
  compose(view: EmailView): ComposedEmail;
  links: HostedLinks;
  urls: { base(environment: Environment): string };
}

export interface CustomerEmailOptions {
  /** E-mails per claim. */
  batchSize?: number;
  /** How long a worker holds what it claimed; it stops sending at half of it. */
  leaseMs?: number;
  /** The delay after the first refusal; each next one doubles, up to an hour. */
  firstRetryMs?: number;
  /** A message still refused this long after it was queued is given up. */
  giveUpAfterMs?: number;
  /**
   * How long one message may take, from connecting to the server's last answer: a server that does
   * not answer in time has the message tried again later, and the run ends there (the rest wait for
   * the next run instead of each waiting out the same silence).
   */
  sendDeadlineMs?: number;
}

/** The service's dependencies with its options settled (defaults filled in), as every use case reads them. */
export interface EmailContext {
  deps: CustomerEmailDeps;
  batchSize: number;
  leaseMs: number;
  firstRetryMs: number;
  giveUpAfterMs: number;
  sendDeadlineMs: number;
  sender: EmailSender | undefined;
  /** SMTP_FROM, or '' when it is not set. */
  from: string;
  /** The domain of every Message-ID: the sender's. */
  messageDomain: string;
  /** True when SMTP is configured: events queue e-mails and the worker sends them. */
  enabled: boolean;
}

export function emailContext(deps: CustomerEmailDeps, options: CustomerEmailOptions): EmailContext {
  const sender = deps.sender;
  const from = deps.from ?? '';
  return {
    deps,
    batchSize: options.batchSize ?? 20,
    leaseMs: options.leaseMs ?? 300_000,
    firstRetryMs: options.firstRetryMs ?? 60_000,
    giveUpAfterMs: options.giveUpAfterMs ?? 86_400_000,
    sendDeadlineMs: options.sendDeadlineMs ?? 30_000,
    sender,
    from,
    messageDomain: from.slice(from.lastIndexOf('@') + 1) || 'opentill.invalid',
    enabled: sender !== undefined && from !== '',
  };
}
