import type { Vendor } from '../../../domain/model.ts';
import type { PanelSignUpMode } from '../../../domain/accounts/index.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';

/** What the sign-in page says to someone without an account, by who may sign up here. */
const NEW_HERE: Record<PanelSignUpMode, Html> = {
  open: html`New here? <a href="/panel/signup">Create an account</a>`,
  invite: html`New here? Accounts are by invitation: open the link the operator of this server sent you.`,
  closed: html`New here? The operator of this server makes vendor accounts; ask them for one.`,
};

/**
 * Sign-in, sign-up in an open panel, or sign-up through an invitation (`invited`: the e-mail it is for
 * and where the form goes). A new account of an open panel is told that it starts in the sandbox.
 */
export function authPage(view: {
  mode: 'signin' | 'signup';
  csrf: string;
  signUpMode: PanelSignUpMode;
  error?: string | undefined;
  email?: string | undefined;
  invited?: { email: string; action: string } | undefined;
}): Html {
  const signup = view.mode === 'signup';
  const email = view.invited
    ? html`<p>You will sign in with <strong>${view.invited.email}</strong>.</p>`
    : html`<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" value="${view.email ?? ''}" required>`;
  return html`<p class="muted">opentill · vendor panel</p><h1>${signup ? 'Create your account' : 'Sign in'}</h1>
  ${signup && !view.invited ? html`<p class="muted" id="sandbox-first">A new account works in the sandbox (test cards, no real money) until the operator of this server enables production for it.</p>` : ''}
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  <form method="post" action="${view.invited?.action ?? `/panel/${view.mode}`}">${csrfField(view.csrf)}
  ${signup ? html`<label for="company">Company name</label><input id="company" name="company" autocomplete="organization" required>` : ''}
  ${email}
  <label for="password">Password${signup ? ' (at least 10 characters)' : ''}</label><input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" minlength="${signup ? 10 : 1}" required>
  <button type="submit">${signup ? 'Create the account' : 'Sign in'}</button></form>
  <p class="muted">${signup ? html`Have an account? <a href="/panel/signin">Sign in</a>` : NEW_HERE[view.signUpMode]}</p>`;
}

/** The sign-up page where nobody may sign up without an invitation: why, and how an account is made instead. */
export function signUpRefusedPage(mode: Exclude<PanelSignUpMode, 'open'>): Html {
  const how =
    mode === 'closed'
      ? html`<h1>Sign-up is closed</h1>
<p>This server does not take sign-ups. Its operator makes vendor accounts on the server:</p>
<pre><code>opentill vendor create --name "Acme" --email owner@acme.example
opentill vendor invite --vendor TC-VE_…</code></pre>
<p>The second command prints a one-time link that sets the account's panel password. Ask the operator of this server for one.</p>`
      : html`<h1>Sign-up is by invitation</h1>
<p>This server takes sign-ups only through an invitation from its operator, who runs</p>
<pre><code>opentill vendor invite --email you@example.com</code></pre>
<p>and sends you the link it prints. Open that link to create your account.</p>`;
  return html`<p class="muted">opentill · vendor panel</p>${how}<p>Have an account? <a href="/panel/signin">Sign in</a></p>`;
}

/** Production's pages for a vendor that does not reach production (an open sign-up): why, and what to ask. */
export function productionClosedContent(vendor: Vendor): Html {
  return html`<div class="box" data-testid="production-closed">
<p>Production is not enabled for <strong>${vendor.name}</strong> yet. An account made by signing up here works in the sandbox: products, credentials and test purchases with test cards, but no real money.</p>
<p>To take real payments, ask the operator of this server to enable production for your vendor ID <code>${vendor.id}</code>. They run:</p>
<pre><code>opentill vendor enable-production --vendor ${vendor.id}</code></pre>
<p>Then reload this page.</p>
<p><a href="${panelHref('/panel', 'sandbox')}">Go to the sandbox</a></p></div>`;
}
