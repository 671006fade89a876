import type { Environment } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from '../panel/panel-layout.ts';

/** The console's pages and their order in the navigation. */
export const OPERATOR_SECTIONS = [
  ['vendors', 'Vendors', '/operator'],
  ['balances', 'Balances', '/operator/balances'],
  ['payouts', 'Payouts', '/operator/payouts'],
  ['reports', 'Tax returns', '/operator/reports'],
  ['reconciliation', 'Reconciliation', '/operator/reconciliation'],
] as const;
export type OperatorSection = (typeof OPERATOR_SECTIONS)[number][0];

/** What a page says after the redirect of a form that did its work (`?done=…`). */
export const OPERATOR_NOTICES: Record<string, string> = {
  production: 'Production is enabled for the vendor.',
  fee: "The vendor's platform fee is saved; payments booked from now on pay it.",
  suspended: 'The vendor is suspended.',
  resumed: 'The vendor sells again.',
  statements: 'The statements are made.',
  'no-statements': 'Nothing to put on a statement: no entries of this vendor are past the hold before that day.',
  paid: 'The statement is marked paid.',
};

/** A link to a console page in an environment, with more query parameters if any: the panel's, with another path. */
export const operatorHref = panelHref;

export interface OperatorFrame {
  email: string;
  environment: Environment;
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
}

/**
 * The frame of every console page: who is signed in, the environment switch, the navigation, then the
 * page. It has the panel's look (its layout and classes), with the operator's own bar colour, so an
 * operator who is also a vendor can tell the two apart at a glance.
 */
export function operatorPage(frame: OperatorFrame, section: OperatorSection, title: string, content: Html): Html {
  const env = frame.environment;
  const target = OPERATOR_SECTIONS.find(([key]) => key === section)![2];
  return html`<div class="panel operator ${env}">
  <header class="bar"><div class="who"><strong>Operator console</strong> <span class="muted">${frame.email}</span></div>
    <div class="env" role="group" aria-label="Environment"><a href="${operatorHref(target, 'production')}" data-testid="env-production"${env === 'production' ? html` aria-current="true"` : ''}>Production</a><a href="${operatorHref(target, 'sandbox')}" data-testid="env-sandbox"${env === 'sandbox' ? html` aria-current="true"` : ''}>Sandbox</a></div>
    <form method="post" action="/operator/signout" class="out">${csrfField(frame.csrf)}<button type="submit" class="link">Sign out</button></form></header>
  <nav aria-label="Console">${OPERATOR_SECTIONS.map(
    ([key, label, path]) =>
      html`<a href="${operatorHref(path, env)}"${key === section ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
  <div class="content">${env === 'sandbox' ? html`<p class="sandbox-note">Sandbox: test data, no real money.</p>` : ''}
  <h1>${title}</h1>
  ${frame.notice ? html`<div class="alert ok" role="status">${frame.notice}</div>` : ''}
  ${frame.error ? html`<div class="alert bad" role="alert">${frame.error}</div>` : ''}
  ${content}</div></div>`;
}

/** The console's bar, on top of the panel's layout. */
export const OPERATOR_STYLE = `.panel.operator.production .bar{background:#eef2ff}button.danger{background:var(--bad);border-color:var(--bad)}`;

/** The sign-in page of the console. */
export function operatorSignInPage(view: {
  csrf: string;
  error?: string | undefined;
  email?: string | undefined;
}): Html {
  return html`<p class="muted">opentill · operator console</p><h1>Sign in</h1>
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  <form method="post" action="/operator/signin">${csrfField(view.csrf)}
  <label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" value="${view.email ?? ''}" required>
  <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button></form>
  <p class="muted">Console logins are made on the server: <code>opentill operator create --email you@example.com</code>.</p>`;
}
