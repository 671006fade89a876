import { newId } from '../ids.ts';
import type { CustomerEmailKind, Environment, Vendor } from '../model.ts';
import {
  sampleView,
  supportAddress,
  type ComposedEmail,
  type OutgoingEmail,
  type SendResult,
} from './customer-email-model.ts';
import type { EmailContext } from './email-context.ts';

/** The message as it goes out: the composed e-mail with its sender, reply-to, recipient and Message-ID. */
export function outgoing(
  ctx: EmailContext,
  vendor: Vendor,
  to: string,
  composed: ComposedEmail,
  id: string,
  environment: Environment,
): OutgoingEmail {
  return {
    ...composed,
    // A sandbox e-mail says so in its subject: a vendor testing must not mistake it for a real sale.
    subject: environment === 'sandbox' ? `[Test] ${composed.subject}` : composed.subject,
    from: { name: vendor.emails.senderName ?? vendor.name, address: ctx.from },
    replyTo: vendor.emails.replyTo ?? supportAddress(vendor),
    to,
    messageId: `<${id}@${ctx.messageDomain}>`,
  };
}

/** An e-mail of this kind with sample data, as the vendor's customers would get it. */
export function previewEmail(
  ctx: EmailContext,
  vendor: Vendor,
  kind: CustomerEmailKind,
  environment: Environment,
): OutgoingEmail {
  const sample = sampleView(vendor, kind, environment, ctx.deps.urls.base(environment));
  return outgoing(ctx, vendor, 'customer@example.com', ctx.deps.compose(sample), newId('email'), environment);
}

/** Sends a sample of this kind to the vendor at once (not through the outbox): the answer says what SMTP said. */
export async function sendTestEmail(
  ctx: EmailContext,
  vendor: Vendor,
  kind: CustomerEmailKind,
  environment: Environment,
  to: string,
): Promise<SendResult | { status: 'OFF' }> {
  if (!ctx.enabled) return { status: 'OFF' };
  return ctx.sender!.send({ ...previewEmail(ctx, vendor, kind, environment), to });
}
