import type { PortalLetter } from '../domain/portal/index.ts';
import type { ComposedEmail } from '../domain/notifications/index.ts';
import { resolveLocale, translator } from '../i18n/index.ts';
import { html } from '../markup/html.ts';

/**
 * The portal's two e-mails (docs/decisions.md §34), in the buyer's language: the one-time sign-in link
 * a customer asked for, and the management link a vendor sent from the panel. One paragraph, one
 * button, one line of who to ask; HTML with inline styles for mail clients, and plain text.
 */
const INK = '#1a1a1a';
const MUTED = '#5b6270';
const FONT = 'font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';

export function composePortalEmail(letter: PortalLetter): ComposedEmail {
  const tr = translator(resolveLocale([letter.locale]));
  const vendor = letter.vendor.name;
  const signIn = letter.kind === 'SIGN_IN';
  const subject = tr.t(signIn ? 'manage.mailSignInSubject' : 'manage.mailManageSubject', { vendor });
  const paragraphs = signIn
    ? [tr.t('manage.mailSignInText', { vendor }), tr.t('manage.mailIgnore')]
    : [tr.t('manage.mailManageText', { vendor })];
  const button = tr.t('manage.mailButton');
  const foot = [
    tr.t('manage.mailQuestions', { support: letter.vendor.supportEmail }),
    ...(letter.environment === 'sandbox' ? [tr.t('manage.mailTest')] : []),
    ...(letter.meantFor ? [tr.t('manage.mailMeantFor', { email: letter.meantFor })] : []),
  ];
  const side = tr.dir === 'rtl' ? 'right' : 'left';
  const body = html`<!doctype html><html lang="${tr.lang}" dir="${tr.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head><body style="margin:0;padding:24px 12px;background:#f4f5f7;${FONT}"><table role="presentation" dir="${tr.dir}" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d9dce1;border-radius:10px"><tr><td style="padding:28px;text-align:${side};${FONT}"><p style="margin:0 0 18px;font-size:14px;font-weight:600;color:${MUTED}">${vendor}</p><h1 style="margin:0 0 16px;font-size:22px;line-height:28px;color:${INK}">${subject}</h1>${paragraphs.map((p) => html`<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:${INK}">${p}</p>`)}<p style="margin:4px 0 20px"><a href="${letter.url}" style="display:inline-block;padding:12px 22px;background:#2550c8;border-radius:6px;font-size:16px;font-weight:600;color:#ffffff;text-decoration:none">${button}</a></p><p style="margin:24px 0 0;padding-top:16px;border-top:1px solid #d9dce1;font-size:13px;line-height:20px;color:${MUTED}">${foot.map((line, i) => (i ? html`<br>${line}` : line))}</p></td></tr></table></body></html>`;
  const text = [
    vendor,
    '',
    subject,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    `${button}:`,
    letter.url,
    '',
    '--',
    ...foot,
  ];
  return { subject, html: body.text, text: `${text.join('\n')}\n` };
}
