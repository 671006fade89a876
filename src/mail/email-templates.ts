import type { ComposedEmail, EmailView } from '../domain/notifications/index.ts';
import type { ChargeFrequency, CustomerEmailKind } from '../domain/model.ts';
import { formatForBuyer, ratePercent } from '../domain/money/index.ts';
import { html, type Html } from '../markup/html.ts';

/**
 * The customer e-mails' words. Each kind is written once, as blocks (a paragraph, amount rows, a
 * licence key, a button), and rendered twice: HTML for mail clients (tables and inline styles, the
 * markup they all read) and plain text. English, amounts in en-US, dates in UTC.
 */
type Block =
  | { p: string }
  | { rows: [label: string, value: string, total?: boolean][] }
  | { code: { label: string; value: string } }
  | { button: { label: string; url: string } }
  | { link: { before: string; label: string; url: string } };

interface Written {
  subject: string;
  heading: string;
  blocks: Block[];
}

const LOCALE = 'en-US';
const longDate = (iso: string) => new Date(iso).toLocaleDateString(LOCALE, { dateStyle: 'long', timeZone: 'UTC' });
const EVERY: Record<ChargeFrequency, string> = {
  DAILY: 'daily',
  WEEKLY: 'weekly',
  MONTHLY: 'monthly',
  HALF_YEARLY: 'half-yearly',
  YEARLY: 'yearly',
  UNKNOWN: '',
};

function amountRows(view: EmailView): Block[] {
  const a = view.amounts;
  if (!a) return [];
  const money = (minor: number) => formatForBuyer(minor, a.currency, LOCALE);
  const rows: [string, string, boolean?][] = [['Product', view.product]];
  if (a.netMinor !== null) rows.push(['Price', money(a.netMinor)]);
  if (a.taxMinor !== null)
    rows.push([`${a.taxName || 'Tax'}${a.taxRate !== null ? ` ${ratePercent(a.taxRate)}` : ''}`, money(a.taxMinor)]);
  rows.push(['Total', money(a.totalMinor), true]);
  return [{ rows }];
}

const total = (view: EmailView) =>
  view.amounts ? formatForBuyer(view.amounts.totalMinor, view.amounts.currency, LOCALE) : '';
const manage = (view: EmailView, label = 'Manage your purchases'): Block => ({
  button: { label, url: view.manageUrl },
});
const document = (view: EmailView, label: string): Block[] =>
  view.documentUrl ? [{ link: { before: '', label, url: view.documentUrl } }] : [];

const WRITE: Record<CustomerEmailKind, (v: EmailView) => Written> = {
  RECEIPT: (v) => {
    if (v.trial) {
      return {
        subject: `Your ${v.product} trial has started`,
        heading: 'Your trial has started',
        blocks: [
          { p: `Thank you for trying ${v.product} from ${v.vendor.name}.` },
          ...(v.date
            ? [
                {
                  p: `Your trial ends on ${longDate(v.date)}; your subscription then starts and your card is charged. Cancel before then and you pay nothing.`,
                },
              ]
            : []),
          ...licence(v),
          manage(v),
        ],
      };
    }
    const what =
      v.frequency !== 'UNKNOWN'
        ? `Your ${EVERY[v.frequency]} subscription to ${v.product} is active.`
        : `You bought ${v.product}.`;
    return {
      subject: `Your receipt from ${v.vendor.name}`,
      heading: 'Thank you for your purchase',
      blocks: [{ p: what }, ...amountRows(v), ...licence(v), ...document(v, 'Download your invoice (PDF)'), manage(v)],
    };
  },
  TRIAL_ENDING: (v) => ({
    subject: `Your ${v.product} trial ends on ${longDate(v.date!)}`,
    heading: 'Your trial ends soon',
    blocks: [
      {
        p: `Your trial of ${v.product} ends on ${longDate(v.date!)}. Your ${EVERY[v.frequency]} subscription then starts and the card you gave is charged.`,
      },
      {
        p: 'Nothing to do if you want to keep it. To stop before the first payment, cancel it from your management page.',
      },
      manage(v, 'Manage your subscription'),
    ],
  }),
  RENEWAL_UPCOMING: (v) => ({
    subject: `Your ${v.product} subscription renews on ${longDate(v.date!)}`,
    heading: 'Your subscription renews soon',
    blocks: [
      {
        p: `Your ${EVERY[v.frequency]} subscription to ${v.product} renews on ${longDate(v.date!)}, and the card on file is charged.`,
      },
      {
        p: 'Nothing to do if you want to keep it. To stop it renewing, cancel it before that date from your management page.',
      },
      manage(v, 'Manage your subscription'),
    ],
  }),
  RENEWED: (v) => ({
    subject: `Payment received: ${v.product}`,
    heading: 'Your subscription is renewed',
    blocks: [
      { p: `Thank you: your subscription to ${v.product} is paid for another period.` },
      ...amountRows(v),
      ...document(v, 'Download your invoice (PDF)'),
      manage(v),
    ],
  }),
  PAYMENT_FAILED: (v) =>
    v.date
      ? {
          subject: `Your payment for ${v.product} failed`,
          heading: 'Your payment failed',
          blocks: [
            { p: `We could not charge your card ${total(v)} for your subscription to ${v.product}.` },
            {
              p: `We will try again on ${longDate(v.date)}. To keep your subscription, check your card or use another one:`,
            },
            manage(v, 'Update your card'),
          ],
        }
      : {
          subject: `Your ${v.product} subscription has ended`,
          heading: 'Your subscription has ended',
          blocks: [
            {
              p: `We could not charge your card ${total(v)} for your subscription to ${v.product}, after several tries, so it has ended.`,
            },
            { p: `To subscribe again, buy it again from ${v.vendor.name}, or write to them.` },
            manage(v, 'See your purchases'),
          ],
        },
  ACTION_REQUIRED: (v) => ({
    subject: `Action required: confirm your payment for ${v.product}`,
    heading: 'Your bank asks you to confirm a payment',
    blocks: [
      {
        p: `Your bank needs you to confirm the payment of ${total(v)} for your subscription to ${v.product}. It takes a moment: open your management page and confirm it there.`,
      },
      manage(v, 'Confirm the payment'),
      ...(v.date ? [{ p: `If it is not confirmed, we will try again on ${longDate(v.date)}.` }] : []),
    ],
  }),
  CANCELLED: (v) => ({
    subject: `Your ${v.product} subscription is cancelled`,
    heading: 'Your subscription is cancelled',
    blocks: [
      { p: `Your subscription to ${v.product} is cancelled and will not renew.` },
      ...(v.date ? [{ p: `You keep access until ${longDate(v.date)}.` }] : [{ p: 'It has ended now.' }]),
      manage(v, 'See your purchases'),
    ],
  }),
  REFUNDED: (v) => ({
    subject: `Refund issued: ${v.product}`,
    heading: 'Your refund is on its way',
    blocks: [
      { p: `${v.vendor.name} refunded ${total(v)} for ${v.product}. It reaches your card within a few business days.` },
      ...amountRows(v),
      ...document(v, 'Download the credit note (PDF)'),
      manage(v, 'See your purchases'),
    ],
  }),
};

function licence(v: EmailView): Block[] {
  return v.licenceKey ? [{ code: { label: 'Your licence key', value: v.licenceKey } }] : [];
}

const INK = '#1a1a1a';
const MUTED = '#5b6270';
const LINE = '#d9dce1';
const ACCENT = '#2550c8';
const FONT = 'font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';

function blockHtml(block: Block): Html {
  if ('p' in block) return html`<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:${INK}">${block.p}</p>`;
  if ('rows' in block) {
    const rows = block.rows.map(
      ([label, value, isTotal]) =>
        html`<tr><td style="padding:8px 0;${isTotal ? `border-top:1px solid ${LINE};font-weight:600;` : ''}color:${INK}">${label}</td><td align="right" style="padding:8px 0;${isTotal ? `border-top:1px solid ${LINE};font-weight:600;` : ''}color:${INK};white-space:nowrap">${value}</td></tr>`,
    );
    return html`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 20px;font-size:15px">${rows}</table>`;
  }
  if ('code' in block) {
    return html`<p style="margin:0 0 6px;font-size:14px;color:${MUTED}">${block.code.label}</p><p style="margin:0 0 20px;padding:12px 14px;background:#f3f5f9;border:1px solid ${LINE};border-radius:6px;font-family:Menlo,Consolas,monospace;font-size:16px;letter-spacing:.5px;word-break:break-all;color:${INK}">${block.code.value}</p>`;
  }
  if ('button' in block) {
    return html`<table role="presentation" cellpadding="0" cellspacing="0" style="margin:4px 0 20px"><tr><td style="border-radius:6px;background:${ACCENT}"><a href="${block.button.url}" style="display:inline-block;padding:12px 22px;font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${block.button.label}</a></td></tr></table>`;
  }
  return html`<p style="margin:0 0 16px;font-size:15px">${block.link.before}<a href="${block.link.url}" style="color:${ACCENT}">${block.link.label}</a></p>`;
}

function blockText(block: Block): string {
  if ('p' in block) return block.p;
  if ('rows' in block) {
    const width = Math.max(...block.rows.map(([label]) => label.length));
    return block.rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
  }
  if ('code' in block) return `${block.code.label}:\n  ${block.code.value}`;
  if ('button' in block) return `${block.button.label}:\n${block.button.url}`;
  return `${block.link.before}${block.link.label}:\n${block.link.url}`;
}

function footer(v: EmailView): { html: Html; text: string } {
  const support = v.vendor.supportEmail;
  const test = v.environment === 'sandbox' ? ' This is a test e-mail from the sandbox: no real money moved.' : '';
  const meant = v.meantFor ? `Sandbox: sent to you, the seller, in place of ${v.meantFor}.` : '';
  const text = `Questions? Write to ${support}.${test}\nSent by ${v.vendor.name} about transaction ${v.transactionId}.${meant ? `\n${meant}` : ''}`;
  return {
    text,
    html: html`<p style="margin:24px 0 0;padding-top:16px;border-top:1px solid ${LINE};font-size:13px;line-height:20px;color:${MUTED}">Questions? Write to <a href="mailto:${support}" style="color:${ACCENT}">${support}</a>.${test}<br>Sent by ${v.vendor.name} about transaction ${v.transactionId}.${meant ? html`<br>${meant}` : ''}</p>`,
  };
}

/** The e-mail of a view: subject, HTML and plain text from the one template of its kind. */
export function composeEmail(view: EmailView): ComposedEmail {
  const written = WRITE[view.kind](view);
  const foot = footer(view);
  const body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light"><title>${written.subject}</title></head><body style="margin:0;padding:0;background:#f4f5f7;${FONT}"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid ${LINE};border-radius:10px"><tr><td style="padding:28px 28px 24px;${FONT}"><p style="margin:0 0 18px;font-size:14px;font-weight:600;color:${MUTED}">${view.vendor.name}</p><h1 style="margin:0 0 16px;font-size:22px;line-height:28px;color:${INK}">${written.heading}</h1>${written.blocks.map(blockHtml)}${foot.html}</td></tr></table></td></tr></table></body></html>`;
  const text = [
    view.vendor.name,
    '',
    written.heading,
    '',
    ...written.blocks.flatMap((b) => [blockText(b), '']),
    '--',
    foot.text,
  ].join('\n');
  return { subject: written.subject, html: body.text, text: `${text}\n` };
}
