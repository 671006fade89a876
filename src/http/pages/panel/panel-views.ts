import { html, type Html } from '../layout.ts';
import { csrfField } from './panel-layout.ts';

export function authPage(view: { mode: 'signin' | 'signup'; csrf: string; error?: string | undefined; email?: string | undefined }): Html {
  const signup = view.mode === 'signup';
  return html`<p class="muted">opentill · vendor panel</p><h1>${signup ? 'Create your account' : 'Sign in'}</h1>
  ${view.error ? html`<div class="alert bad" role="alert">${view.error}</div>` : ''}
  <form method="post" action="/panel/${view.mode}">${csrfField(view.csrf)}
  ${signup ? html`<label for="company">Company name</label><input id="company" name="company" autocomplete="organization" required>` : ''}
  <label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" value="${view.email ?? ''}" required>
  <label for="password">Password${signup ? ' (at least 10 characters)' : ''}</label><input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" minlength="${signup ? 10 : 1}" required>
  <button type="submit">${signup ? 'Create the account' : 'Sign in'}</button></form>
  <p class="muted">${signup ? html`Have an account? <a href="/panel/signin">Sign in</a>` : html`New here? <a href="/panel/signup">Create an account</a>`}</p>`;
}
