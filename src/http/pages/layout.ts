import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml, html, Html } from '../../markup/html.ts';

/** The one layout of every server-rendered page: one small look, strict security headers, no third-party anything. */
export { escapeHtml, Html, html };

const STYLE = `
:root{--ink:#1a1a1a;--muted:#5b6270;--line:#d9dce1;--accent:#2550c8;--bad:#b42318;--ok:#067647;--bg:#fff}
*{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg);margin:0}
main{max-width:30rem;margin:0 auto;padding:1.5rem 1rem 3rem}h1{font-size:1.35rem;margin:.2rem 0 .3rem}p{margin:.4rem 0}
.muted{color:var(--muted);font-size:.92rem}.box{border:1px solid var(--line);border-radius:.6rem;padding:1rem;margin:1rem 0}
table{width:100%;border-collapse:collapse}td{padding:.25rem 0}td:last-child{text-align:end;font-variant-numeric:tabular-nums}
tr.total td{border-top:1px solid var(--line);font-weight:600;padding-top:.5rem}
label{display:block;font-weight:500;margin:.8rem 0 .25rem}input,select,textarea{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #9aa1ad;border-radius:.45rem;background:#fff}
input[readonly]{background:#f3f4f6}input:focus,select:focus,textarea:focus,button:focus{outline:3px solid #9db4f0;outline-offset:1px}
.row{display:flex;gap:.75rem}.row>div{flex:1}.row.search{align-items:flex-end}.row>div.fixed{flex:0 0 6rem}.row.search button{margin-top:0;padding:0 .8rem}
.row.search input,.row.search button{height:2.85rem}table.fields td:first-child{white-space:nowrap;padding-inline-end:1rem;vertical-align:top}
button{font:inherit;font-weight:600;width:100%;margin-top:1.2rem;padding:.8rem;border:0;border-radius:.5rem;background:var(--accent);color:#fff;cursor:pointer}
h2{font-size:1.1rem;margin:1.4rem 0 .4rem}table.list td{border-top:1px solid var(--line);padding:.5rem 0;vertical-align:top}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f7f9;padding:.6rem;border-radius:.4rem;font-size:.85rem}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}label.check input{width:auto;margin-top:.35rem}
button.secondary{background:#fff;color:var(--bad);border:1px solid #f4b7b2}summary{cursor:pointer;color:var(--accent);margin-top:.6rem}
button.link{background:none;color:var(--accent);width:auto;margin:0;padding:.2rem .4rem}
.alert{border-radius:.5rem;padding:.7rem .9rem;margin:1rem 0;border:1px solid}.alert.bad{color:var(--bad);border-color:#f4b7b2;background:#fef3f2}
.alert.ok{color:var(--ok);border-color:#a6e4c1;background:#ecfdf3}code{font-size:.95em;word-break:break-all}
a{color:var(--accent)}.top{display:flex;justify-content:space-between;align-items:center}ul{padding-inline-start:1.2rem}.element{min-height:3rem;margin:.35rem 0 1rem}
.badge{display:inline-block;margin:0 0 .6rem;padding:.2rem .6rem;border-radius:1rem;background:#fff4d6;color:#7a4b00;border:1px solid #f0c36d;font-size:.85rem;font-weight:600}
.field-error{color:var(--bad);font-size:.9rem;margin:.25rem 0 0}[aria-invalid=true]{border-color:var(--bad);box-shadow:0 0 0 1px var(--bad)}.brand{float:inline-end;font-weight:600;color:var(--muted)}
`;

export interface PageOptions {
  status: number;
  title: string;
  body: Html;
  /** Origins that may frame the page; default none. */
  frameAncestors?: string;
  /** Inline script, allowed by a per-response nonce: bundled page scripts (src/http/pages/page-scripts.ts). */
  script?: string;
  /**
   * What the page scripts read, by element id: each value written as JSON in a
   * `<script type="application/json" id=…>` data block, which the browser never runs.
   */
  data?: Readonly<Record<string, unknown>>;
  /** More CSS after the common look (a page's own layout), under the same nonce. */
  style?: string;
  /**
   * Allows `style="…"` attributes (never style elements or scripts): for the panel's e-mail preview,
   * whose sandboxed `srcdoc` frame inherits this page's policy and holds an e-mail styled inline.
   */
  styleAttributes?: boolean;
  /** The payment processor's script, loaded before the inline script; its origins may be framed and called. */
  processorScript?: { url: string; origins: readonly string[] } | undefined;
  /** The reader's language and direction (src/i18n): a buyer's page speaks theirs; default English, left to right. */
  speech?: Speech | undefined;
}

/** What `<html>` says about the page's language: `lang` and `dir` of a Translator fit. */
export interface Speech {
  lang: string;
  dir: 'ltr' | 'rtl';
}

/**
 * Origins a processor's script frames besides its own, as the processor documents for a CSP: Stripe.js
 * shows 3-D Secure challenges from hooks.stripe.com (https://docs.stripe.com/security/guide#content-security-policy).
 */
const PROCESSOR_FRAMES: Readonly<Record<string, readonly string[]>> = {
  'https://js.stripe.com': ['https://hooks.stripe.com'],
};

/** JSON inside <script>: no "</script>", "<!--" or line separators can end the script early. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The data blocks of `data`, before the scripts that read them. */
const dataBlocks = (data: PageOptions['data']) =>
  Object.entries(data ?? {})
    .map(([id, value]) => `<script type="application/json" id="${escapeHtml(id)}">${scriptJson(value)}</script>`)
    .join('');

export function sendPage(reply: FastifyReply, options: PageOptions) {
  const nonce = randomBytes(16).toString('base64');
  const processor = options.processorScript;
  const origins = processor ? ` ${processor.origins.join(' ')}` : '';
  const frames = processor
    ? ` ${[...new Set([...processor.origins, ...processor.origins.flatMap((o) => PROCESSOR_FRAMES[o] ?? [])])].join(' ')}`
    : '';
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    ...(options.styleAttributes ? ["style-src-attr 'unsafe-inline'"] : []),
    `script-src 'nonce-${nonce}'${origins}`,
    `connect-src 'self'${origins}`,
    ...(processor ? [`frame-src${frames}`] : []),
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${options.frameAncestors ?? "'none'"}`,
  ].join('; ');
  const page =
    `<!doctype html><html lang="${escapeHtml(options.speech?.lang ?? 'en')}" dir="${options.speech?.dir ?? 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(options.title)} · opentill</title><style nonce="${nonce}">${STYLE}${options.style ?? ''}</style></head><body><main>${options.body.text}</main>` +
    dataBlocks(options.data) +
    (processor ? `<script nonce="${nonce}" src="${escapeHtml(processor.url)}"></script>` : '') +
    (options.script ? `<script nonce="${nonce}">${options.script}</script>` : '') +
    `</body></html>`;
  return reply
    .code(options.status)
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page);
}

/** The one problem page of every area: a title and one sentence that says what to do. */
export function sendProblem(
  reply: FastifyReply,
  status: number,
  title: string,
  text: string,
  frameAncestors?: string,
  speech?: Speech,
) {
  return sendPage(reply, { status, title, frameAncestors, speech, body: html`<h1>${title}</h1><p>${text}</p>` });
}
