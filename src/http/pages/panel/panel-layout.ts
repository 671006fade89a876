import type { Environment, Vendor } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';

/** The panel's pages and their order in the navigation. */
export const SECTIONS = [
  ['overview', 'Overview', '/panel'],
  ['transactions', 'Transactions', '/panel/transactions'],
  ['customers', 'Customers', '/panel/customers'],
  ['products', 'Products', '/panel/products'],
  ['coupons', 'Coupons', '/panel/coupons'],
  ['developers', 'Developers', '/panel/developers'],
  ['emails', 'E-mails', '/panel/emails'],
  ['settings', 'Settings', '/panel/settings'],
] as const;
export type Section = (typeof SECTIONS)[number][0];

/** The section a panel path belongs to (`/panel/transactions/…` to transactions), for the navigation. */
export const sectionOf = (path: string): Section =>
  [...SECTIONS]
    .reverse()
    .find(([, , prefix]) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}.`))?.[0] ??
  'overview';

/** What a page says after the redirect of a form that did its work (`?done=…`). */
export const NOTICES: Record<string, string> = {
  product: 'The product is created.',
  'product-saved': 'The product is saved.',
  'product-archived': 'The product is archived: nobody can buy it now; its subscriptions go on renewing.',
  'product-unarchived': 'The product is on sale again.',
  'product-image': 'The product image is saved.',
  'product-image-removed': 'The product image is removed.',
  coupon: 'The coupon is created.',
  'coupon-revoked': 'The coupon is revoked.',
  settings: 'The settings are saved.',
  emails: 'The e-mail settings are saved.',
  revoked: 'The credential is revoked.',
  credential: 'The credential is created.',
  webhook: 'The webhook endpoint is added.',
  'webhook-removed': 'The webhook endpoint is removed.',
  'webhook-enabled': 'The webhook endpoint is enabled again; what waited for it is being sent.',
  'webhook-tested': 'The test event was delivered.',
  'webhook-test-failed': 'The test event was not delivered: its answer is in the log.',
  'webhook-replayed': 'The event is sent again.',
  'admin-sessions': 'Every admin tool session of this environment has ended.',
  'refund-pending': 'The refund is being confirmed by the payment provider; it appears here once confirmed.',
  cancelled: 'The transaction is cancelled.',
  'manage-link-sent': 'The management link is on its way to the customer.',
  'manage-link-sent-to-you': 'Sandbox: the management link is on its way to your own address, not to the customer.',
  'manage-link-off': 'Customer e-mails are off, so nothing was sent: copy the link below and give it to the customer.',
  'licence-revoked': 'The licence key is revoked: it no longer works. The purchase is untouched.',
  'licence-reissued':
    'A new licence key replaces the old one, which no longer works; the customer is e-mailed it when e-mails are on.',
  'licence-instance-freed': 'The activation is removed: its slot is free.',
  paused: 'The subscription will pause at the end of its paid period; nothing is charged while it is paused.',
  resumed: 'The subscription is resumed: a new period starts now and is charged now.',
  'pause-called-off': 'The pause is called off: the subscription renews as before.',
  'seats-changed':
    'The seats are changed: this subscription goes on with them (more from now, fewer from the end of the paid period).',
};

/** What every signed-in page shows around its content. */
export interface Frame {
  vendor: Vendor;
  email: string;
  environment: Environment;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
  /** What keeps the vendor's checkout closed here (panel-notices.ts), shown on every page of the environment. */
  warnings?: Html | undefined;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A link to a panel page in the current environment, with more query parameters if any. */
export function panelHref(
  path: string,
  environment: Environment,
  query: Record<string, string | number | undefined> = {},
): string {
  const params = new URLSearchParams({ env: environment });
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  return `${path}?${params.toString()}`;
}

/**
 * The frame of every signed-in page: the vendor, its ID with a copy button, the environment switch
 * (always visible), the navigation, then the page. Wide on a desktop (navigation on the left), one
 * column on a phone, its tabs wrapping onto a second line rather than scrolling out of sight mid-word.
 */
export function panelPage(frame: Frame, section: Section, title: string, content: Html, switchPath?: string): Html {
  const env = frame.environment;
  const target = switchPath ?? SECTIONS.find(([key]) => key === section)![2];
  return html`<div class="panel ${env}">
  <header class="bar"><div class="who"><strong>${frame.vendor.name}</strong> <span class="muted">${frame.email}</span>
    <span class="vid muted">Vendor ID <code id="vendor-id" data-testid="vendor-id">${frame.vendor.id}</code> <button type="button" class="link" data-copy="vendor-id">Copy</button></span></div>
    <div class="env" role="group" aria-label="Environment"><a href="${panelHref(target, 'production')}" data-testid="env-production"${env === 'production' ? html` aria-current="true"` : ''}>Production</a><a href="${panelHref(target, 'sandbox')}" data-testid="switch"${env === 'sandbox' ? html` aria-current="true"` : ''}>Sandbox</a></div>
    <form method="post" action="/panel/signout" class="out">${csrfField(frame.csrf)}<button type="submit" class="link">Sign out</button></form></header>
  <nav aria-label="Panel">${SECTIONS.map(
    ([key, label, path]) =>
      html`<a href="${panelHref(path, env)}"${key === section ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
  <div class="content">${env === 'sandbox' ? html`<p class="sandbox-note">Sandbox: test data, no real money.</p>` : ''}
  <h1>${title}</h1>
  ${frame.warnings ?? ''}
  ${frame.notice ? html`<div class="alert ok" role="status">${frame.notice}</div>` : ''}
  ${frame.error ? html`<div class="alert bad" role="alert">${frame.error}</div>` : ''}
  ${content}</div></div>`;
}

/** The panel's own layout on top of the common look. */
export const PANEL_STYLE = `
main:has(.panel){max-width:none;padding:0}
.panel{display:grid;grid-template-columns:13rem 1fr;grid-template-rows:auto 1fr;grid-template-areas:"bar bar" "nav content";min-height:100vh}
.panel .bar{grid-area:bar;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;padding:.6rem 1.2rem;border-bottom:1px solid var(--line);background:#f8f9fb}
.panel .who{flex:1;min-width:14rem}.panel .vid{display:inline-block;margin-left:.6rem}.panel .out button{margin:0}
.panel.sandbox .bar{background:#fff8e6}.sandbox-note{color:#8a5a00;font-size:.9rem;margin:0 0 .3rem}
.env{display:flex;border:1px solid #9aa1ad;border-radius:.45rem;overflow:hidden}.env a{padding:.35rem .8rem;text-decoration:none;color:var(--ink)}
.env a[aria-current]{background:var(--accent);color:#fff;font-weight:600}
.panel nav{grid-area:nav;display:flex;flex-direction:column;padding:1rem .6rem;border-right:1px solid var(--line)}
.panel nav a{padding:.5rem .7rem;border-radius:.4rem;color:var(--ink);text-decoration:none}.panel nav a[aria-current]{background:#e8eefc;color:var(--accent);font-weight:600}
.panel .content{grid-area:content;padding:1.2rem 1.6rem 3rem;min-width:0;max-width:72rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.8rem;margin:1rem 0}.card{border:1px solid var(--line);border-radius:.6rem;padding:.8rem}
.card .big{font-size:1.35rem;font-weight:650;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}.card .muted{margin:0}
.chart-box{margin:.4rem 0 1rem}.chart-empty{display:grid;place-items:center;min-height:6rem;border:1px dashed var(--line);border-radius:.6rem;color:var(--muted)}.chart-box.chart-empty p{font-size:1rem}.chart{display:block;width:100%;height:13rem}.chart-box p{margin:0;font-size:.8rem}
.chart-dates{display:flex;justify-content:space-between;padding:.2rem 1.25% 0}.legend span{display:inline-block;margin-right:1rem}.key{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem;vertical-align:-.05rem;margin-right:.3rem}
.alert.warn{color:#6b4100;border-color:#f0c36d;background:#fff8e6}.alert.warn p{margin:.2rem 0}.alert.warn code{white-space:nowrap}
.basis{margin:.2rem 0;font-size:.9rem;max-width:48rem}
.key.paid{background:#2550c8}.key.refunded{background:#d92d20}
table.grid{width:100%;border-collapse:collapse;font-size:.95rem}table.grid th{text-align:left;font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);padding:.4rem .5rem}
table.grid td{border-bottom:1px solid var(--line);padding:.45rem .5rem;text-align:left;vertical-align:top}table.grid td.num,table.grid th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto}.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:0 .8rem;align-items:end}.filters button{margin-top:.8rem;padding:0 1rem}
.filters input,.filters select,.filters button{height:2.85rem}
.inline{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center}.inline button,.inline a.button{width:auto;margin-top:.6rem}
.content button.outline{width:auto;background:#fff;color:var(--accent);border:1px solid var(--accent);padding:.6rem 1rem;height:auto;margin-top:.2rem}.manage-link{margin:.4rem 0}table.grid td.when{white-space:nowrap}.manage-link code{display:block;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-size:.85rem}
a.button{display:inline-block;padding:.6rem 1rem;border-radius:.5rem;border:1px solid var(--accent);color:var(--accent);text-decoration:none;font-weight:600;margin-top:.6rem}
.pager{display:flex;gap:1rem;align-items:center;margin:1rem 0}.st{display:inline-block;padding:.05rem .5rem;border-radius:1rem;background:#eef0f3;font-size:.85rem;white-space:nowrap}
.st.good{background:#ecfdf3;color:var(--ok)}.st.warn{background:#fff4e5;color:#8a5a00}.st.bad{background:#fef3f2;color:var(--bad)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.content form.narrow,.content div.narrow{max-width:30rem}img.logo-now{max-height:48px;max-width:160px;vertical-align:middle}img.product-image-now{max-height:96px;max-width:160px;vertical-align:middle;border-radius:.3rem}.content .box{max-width:48rem}
.kinds{list-style:none;padding:0;margin:.6rem 0;max-width:48rem}.kinds li{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:center;justify-content:space-between;border-top:1px solid var(--line);padding:.35rem 0}
.kinds label.check{margin:.3rem 0;flex:1 1 20rem}.kinds .inline button{margin-top:0}
table.sent-emails td{overflow-wrap:anywhere}.sent-emails .at{display:block;font-size:.85rem;color:var(--muted)}tr.failed td{background:#fef3f2}tr.failed .st.bad{background:var(--bad);color:#fff;font-weight:600}tr.failed td:first-child{box-shadow:inset 3px 0 0 var(--bad)}.why{display:block;font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}tr.failed .why{color:var(--bad)}
dl.facts.email-headers dd,pre.email-text{word-break:normal;overflow-wrap:anywhere}.email-frame{display:block;width:100%;height:640px;border:1px solid var(--line);border-radius:.6rem;background:#f4f5f7;margin:.6rem 0}
@media (max-width:760px){
.panel{grid-template-columns:1fr;grid-template-rows:auto auto 1fr;grid-template-areas:"bar" "nav" "content"}
.panel .bar{padding:.6rem .8rem}.panel .vid{display:block;margin:0}.panel .vid code{font-size:.78rem}
.panel nav{flex-direction:row;flex-wrap:wrap;gap:.15rem;border-right:0;border-bottom:1px solid var(--line);padding:.3rem .4rem}.panel nav a{padding:.35rem .55rem;white-space:nowrap}
.panel .content{padding:1rem .8rem 2.5rem}
table.grid .hide-phone{display:none}.chart{height:9rem}
}`;
