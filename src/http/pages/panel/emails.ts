import type { EmailSettingsInput, OutgoingEmail } from '../../../domain/notifications/index.ts';
import { CUSTOMER_EMAIL_KINDS, type CustomerEmailKind, type Environment, type Vendor } from '../../../domain/model.ts';
import type { OutboxEmail } from '../../../domain/ports.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';

/**
 * The panel's E-mails page: whether customer e-mails go out at all (only when the operator set
 * SMTP_URL and SMTP_FROM), the vendor's sender name, reply-to address and which kinds are sent, a
 * preview and a test of each kind, and the environment's latest e-mails, failed ones standing out.
 */

/** Each kind in the vendor's words: its name, and when it is sent. */
export const KIND_WORDS: Record<CustomerEmailKind, { label: string; when: string }> = {
  RECEIPT: { label: 'Receipt', when: 'after a purchase, with the amounts, invoice and licence key' },
  TRIAL_ENDING: { label: 'Trial ending', when: '3 days before a free trial ends and the first payment is taken' },
  RENEWAL_UPCOMING: { label: 'Renewal coming up', when: '7 days before a yearly subscription renews' },
  RENEWED: { label: 'Renewed', when: 'after each paid renewal, with the amounts and invoice' },
  PAYMENT_FAILED: {
    label: 'Payment failed',
    when: 'when a renewal cannot be charged, and when a subscription ends after the last try',
  },
  ACTION_REQUIRED: {
    label: 'Action required',
    when: "when the customer's bank asks them to confirm a renewal payment",
  },
  CANCELLED: { label: 'Cancelled', when: 'when a subscription is cancelled, by the customer or by you' },
  REFUNDED: { label: 'Refunded', when: 'after a refund, with the amounts and credit note' },
  LICENCE_REISSUED: { label: 'Licence key reissued', when: 'when you reissue a licence key, with the new key' },
};

/** The kind a path or form names, if it is one. */
export const emailKind = (value: string | undefined): CustomerEmailKind | undefined =>
  CUSTOMER_EMAIL_KINDS.find((kind) => kind === value);

/** The settings form's fields as the domain takes them: an unticked kind is turned off, empty text clears. */
export const emailSettingsOf = (form: FormBody): EmailSettingsInput => ({
  senderName: form.senderName ?? '',
  replyTo: form.replyTo ?? '',
  off: CUSTOMER_EMAIL_KINDS.filter((kind) => form[`send_${kind}`] !== 'yes'),
});

type ListedEmail = OutboxEmail & { recipient: string | null };

const when = (at: string) => at.replace('T', ' ').slice(0, 16);

function statusOf(e: ListedEmail): Html {
  if (e.status === 'SENT') return html`<span class="st good">Sent</span>`;
  if (e.status === 'SKIPPED') return html`<span class="st">Turned off</span>`;
  if (e.status === 'FAILED')
    return html`<span class="st bad">Failed</span>${e.lastError ? html`<span class="why">${e.lastError}</span>` : ''}`;
  if (e.tries === 0) return html`<span class="st">Waiting to be sent</span>`;
  return html`<span class="st warn">Waiting to retry</span><span class="why">${e.lastError ?? ''} Next try ${when(e.nextTryAt)}.</span>`;
}

function recentEmails(environment: Environment, emails: readonly ListedEmail[]): Html {
  if (emails.length === 0) return html`<p class="muted" data-testid="no-emails">No ${environment} e-mails yet.</p>`;
  const failed = emails.filter((e) => e.status === 'FAILED').length;
  return html`${
    failed > 0
      ? html`<p class="alert bad" data-testid="failed-count">${failed === 1 ? 'One e-mail' : `${failed} e-mails`} could not be delivered: the mail server refused ${failed === 1 ? 'it' : 'them'} for a day, or for good. The reason is in the list.</p>`
      : ''
  }
  <div class="scroll"><table class="grid sent-emails" aria-label="Recent e-mails"><thead><tr><th>E-mail</th><th>To</th><th>Status</th><th class="hide-phone">Transaction</th></tr></thead><tbody>${emails.map(
    (e) => {
      const transaction = panelHref(`/panel/transactions/${e.facts.transactionId}`, environment);
      return html`<tr data-testid="email" data-status="${e.status}"${e.status === 'FAILED' ? html` class="failed"` : ''}><td><a href="${transaction}">${KIND_WORDS[e.kind].label}</a><span class="at">${when(e.createdAt)}</span></td>
    <td>${e.recipient ?? '—'}</td><td>${statusOf(e)}</td><td class="hide-phone"><a href="${transaction}"><code>${e.facts.transactionId}</code></a></td></tr>`;
    },
  )}</tbody></table></div>`;
}

/** The E-mails page; after a refused save, `form` holds what was typed so nothing is lost. */
export function emailsContent(view: {
  environment: Environment;
  csrf: string;
  vendor: Vendor;
  /** SMTP_FROM when e-mails are on; undefined when they are off. */
  sendingFrom: string | undefined;
  /** The sandbox's e-mails go to the vendor's own address, not to its test customers (SMTP_SANDBOX_TO). */
  sandboxToVendor: boolean;
  emails: readonly ListedEmail[];
  form?: FormBody | undefined;
}): Html {
  const env = view.environment;
  const v = view.vendor;
  const typed = (name: string, saved: string | null) => view.form?.[name] ?? saved ?? '';
  const sending = (kind: CustomerEmailKind) =>
    view.form ? view.form[`send_${kind}`] === 'yes' : !v.emails.off.includes(kind);
  const replyFallback = v.supportEmail ?? v.email;
  const off = view.sendingFrom === undefined;
  return html`${
    off
      ? html`<p class="alert bad" data-testid="emails-off">Customer e-mails are off: the operator of this opentill has not configured SMTP (<code>SMTP_URL</code> and <code>SMTP_FROM</code>). Nothing is sent to your customers.</p>`
      : html`<p class="alert ok" data-testid="emails-on">Customer e-mails are on. They are sent from <strong>${view.sendingFrom}</strong> with your name.</p>`
  }
  <form method="post" action="/panel/emails/test?env=${env}" id="email-test">${csrfField(view.csrf)}</form>
  <form method="post" action="/panel/emails?env=${env}">${csrfField(view.csrf)}
    <div class="narrow">
    <label for="senderName">Sender name</label><input id="senderName" name="senderName" maxlength="80" value="${typed('senderName', v.emails.senderName)}" placeholder="${v.name}" aria-describedby="senderName-help">
    <p class="muted" id="senderName-help">Who your customers see the e-mails from. Empty: ${v.name}.</p>
    <label for="replyTo">Reply-to address</label><input id="replyTo" name="replyTo" type="email" maxlength="254" value="${typed('replyTo', v.emails.replyTo)}" placeholder="${replyFallback}" aria-describedby="replyTo-help">
    <p class="muted" id="replyTo-help">Where your customers' replies go. Empty: ${replyFallback}.</p>
    </div>
    <h2>Which e-mails are sent</h2>
    <p class="muted" data-testid="sandbox-note">These settings apply to production and sandbox alike. Sandbox e-mails say “[Test]” in their subject${
      view.sandboxToVendor ? html` and go to you (${v.email}), not to your test customers` : ''
    }.</p>
    <ul class="kinds">${CUSTOMER_EMAIL_KINDS.map((kind) => {
      const { label, when: sent } = KIND_WORDS[kind];
      return html`<li data-testid="kind" data-kind="${kind}"><label class="check"><input type="checkbox" name="send_${kind}" value="yes"${sending(kind) ? html` checked` : ''}> <span><strong>${label}</strong> — ${sent}</span></label>
      <span class="inline"><a href="${panelHref(`/panel/emails/preview/${kind}`, env)}" aria-label="Preview the ${label.toLowerCase()} e-mail" data-testid="preview">Preview</a>
      <button type="submit" form="email-test" name="kind" value="${kind}" class="link" aria-label="Send me a test ${label.toLowerCase()} e-mail" data-testid="send-test"${off ? html` disabled` : ''}>Send me a test</button></span></li>`;
    })}</ul>
    ${off ? '' : html`<p class="muted">A test goes to your own address, at once, with sample data.</p>`}
    <div class="narrow"><button type="submit" data-testid="save-emails">Save the e-mail settings</button></div></form>
  <h2>Recent e-mails</h2>
  ${recentEmails(env, view.emails)}`;
}

/**
 * One kind with sample data, as the vendor's customers would get it: headers, the HTML in a sandboxed
 * frame, the text. The frame runs no script and sends no form; it keeps the page's origin so the
 * browser lays it out with the page (a frame of its own origin is drawn by another process, which laid
 * the e-mail out a few hundred pixels narrow: docs/decisions.md §36).
 */
export function emailPreviewContent(view: {
  environment: Environment;
  kind: CustomerEmailKind;
  email: OutgoingEmail;
  enabled: boolean;
}): Html {
  const { email } = view;
  return html`<p><a href="${panelHref('/panel/emails', view.environment)}">← All e-mails</a></p>
  <p class="muted">${KIND_WORDS[view.kind].label} — sent ${KIND_WORDS[view.kind].when}. Sample data; its links lead nowhere.</p>
  <dl class="facts email-headers" data-testid="headers"><dt>Subject</dt><dd data-testid="subject">${email.subject}</dd>
    <dt>From</dt><dd>${view.enabled ? `${email.from.name} <${email.from.address}>` : `${email.from.name} (not configured)`}</dd>
    <dt>Reply-To</dt><dd>${email.replyTo}</dd><dt>To</dt><dd>${email.to} (the customer)</dd></dl>
  <iframe class="email-frame" sandbox="allow-same-origin" srcdoc="${email.html}" title="The e-mail as customers see it" data-testid="email-html"></iframe>
  <h2>Plain-text version</h2>
  <pre class="email-text" data-testid="email-text">${email.text}</pre>`;
}
