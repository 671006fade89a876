import type { ComposedEmail, EmailView } from '../domain/notifications/index.ts';
import type { Translator } from '../i18n/index.ts';
import { html, type Html } from '../markup/html.ts';

/**
 * A written e-mail rendered twice: HTML for mail clients (tables and inline styles, the markup they all
 * read) and plain text. Right-to-left languages get dir="rtl" on the document and every table, and
 * their "end" side is the left: mail clients ignore logical CSS, so the sides are chosen here.
 */
export type Block =
  | { p: string }
  | { rows: [label: string, value: string, total?: boolean][] }
  | { code: { label: string; value: string } }
  | { button: { label: string; url: string } }
  | { link: { label: string; url: string } };

export interface Written {
  subject: string;
  heading: string;
  blocks: Block[];
}

const INK = '#1a1a1a';
const MUTED = '#5b6270';
const LINE = '#d9dce1';
const ACCENT = '#2550c8';
const FONT = 'font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';

function rowsHtml(rows: [string, string, boolean?][], tr: Translator): Html {
  const start = tr.dir === 'rtl' ? 'right' : 'left';
  const end = tr.dir === 'rtl' ? 'left' : 'right';
  const cells = rows.map(([label, value, isTotal]) => {
    const style = `padding:8px 0;${isTotal ? `border-top:1px solid ${LINE};font-weight:600;` : ''}color:${INK}`;
    return html`<tr><td align="${start}" style="${style};text-align:${start}">${label}</td><td align="${end}" style="${style};text-align:${end};white-space:nowrap">${value}</td></tr>`;
  });
  return html`<table role="presentation" dir="${tr.dir}" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 20px;font-size:15px">${cells}</table>`;
}

function blockHtml(block: Block, tr: Translator): Html {
  if ('p' in block) return html`<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:${INK}">${block.p}</p>`;
  if ('rows' in block) return rowsHtml(block.rows, tr);
  if ('code' in block) {
    return html`<p style="margin:0 0 6px;font-size:14px;color:${MUTED}">${block.code.label}</p><p dir="ltr" style="margin:0 0 20px;padding:12px 14px;background:#f3f5f9;border:1px solid ${LINE};border-radius:6px;font-family:Menlo,Consolas,monospace;font-size:16px;letter-spacing:.5px;word-break:break-all;color:${INK};text-align:${tr.dir === 'rtl' ? 'right' : 'left'}">${block.code.value}</p>`;
  }
  if ('button' in block) {
    return html`<table role="presentation" dir="${tr.dir}" cellpadding="0" cellspacing="0" style="margin:4px 0 20px"><tr><td style="border-radius:6px;background:${ACCENT}"><a href="${block.button.url}" style="display:inline-block;padding:12px 22px;font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${block.button.label}</a></td></tr></table>`;
  }
  return html`<p style="margin:0 0 16px;font-size:15px"><a href="${block.link.url}" style="color:${ACCENT}">${block.link.label}</a></p>`;
}

function blockText(block: Block): string {
  if ('p' in block) return block.p;
  if ('rows' in block) {
    const width = Math.max(...block.rows.map(([label]) => label.length));
    return block.rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
  }
  if ('code' in block) return `${block.code.label}:\n  ${block.code.value}`;
  if ('button' in block) return `${block.button.label}:\n${block.button.url}`;
  return `${block.link.label}:\n${block.link.url}`;
}

/** Whom to ask, the sandbox's warning, and which transaction it is about; in the buyer's language. */
function footer(v: EmailView, tr: Translator): { html: Html; text: string } {
  const support = v.vendor.supportEmail;
  const lines = [
    ...(v.environment === 'sandbox' ? [tr.t('email.footerSandbox')] : []),
    tr.t('email.footerSentBy', { vendor: v.vendor.name, transaction: v.transactionId }),
    ...(v.meantFor ? [tr.t('email.footerMeantFor', { customer: v.meantFor })] : []),
  ];
  const ask = tr.html('email.footerQuestions', {
    support: html`<a href="mailto:${support}" style="color:${ACCENT}">${support}</a>`,
  });
  return {
    text: [tr.t('email.footerQuestions', { support }), ...lines].join('\n'),
    html: html`<p style="margin:24px 0 0;padding-top:16px;border-top:1px solid ${LINE};font-size:13px;line-height:20px;color:${MUTED}">${ask}${lines.map((line) => html`<br>${line}`)}</p>`,
  };
}

/** The composed e-mail: the subject, the HTML part with the document's language and direction, the text part. */
export function renderEmail(view: EmailView, tr: Translator, written: Written): ComposedEmail {
  const foot = footer(view, tr);
  const align = tr.dir === 'rtl' ? 'right' : 'left';
  const body = html`<!doctype html><html lang="${tr.lang}" dir="${tr.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light"><title>${written.subject}</title></head><body dir="${tr.dir}" style="margin:0;padding:0;background:#f4f5f7;${FONT}"><table role="presentation" dir="${tr.dir}" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px"><table role="presentation" dir="${tr.dir}" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid ${LINE};border-radius:10px"><tr><td align="${align}" style="padding:28px 28px 24px;text-align:${align};${FONT}"><p style="margin:0 0 18px;font-size:14px;font-weight:600;color:${MUTED}">${view.vendor.name}</p><h1 style="margin:0 0 16px;font-size:22px;line-height:28px;color:${INK}">${written.heading}</h1>${written.blocks.map((b) => blockHtml(b, tr))}${foot.html}</td></tr></table></td></tr></table></body></html>`;
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
