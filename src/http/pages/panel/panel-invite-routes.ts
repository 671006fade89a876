import { AppError } from '../../../domain/errors.ts';
import type { Services } from '../../../services.ts';
import type { HttpApp } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { html, sendPage, sendProblem } from '../layout.ts';

/**
 * `/panel/invite/{token}`: the one-time link `opentill vendor invite` prints. It sets the password of
 * the vendor's panel login (its e-mail is the vendor's) and sends the vendor to sign in. The link is
 * the credential; it works once, for a day.
 */
export function registerPanelInvite(app: HttpApp, { services }: { services: Services }) {
  const form = (vendorName: string, email: string, error?: string) =>
    html`<p class="muted">opentill panel</p><h1>Set your panel password</h1>
<p>For <strong>${vendorName}</strong>. You will sign in with <strong>${email}</strong>.</p>
${error ? html`<div class="alert bad" role="alert" id="error">${error}</div>` : ''}
<form method="post"><label for="password">New password (10 to 200 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200"${error ? html` aria-invalid="true" aria-describedby="error"` : ''}>
<button type="submit">Set the password</button></form>`;

  const unusable = (reply: Parameters<typeof sendProblem>[0], status: 'invalid' | 'expired' | 'used') =>
    status === 'invalid'
      ? sendProblem(
          reply,
          404,
          'This link is not valid',
          'Check that you copied the whole link, or ask for a new one with `opentill vendor invite`.',
        )
      : sendProblem(
          reply,
          410,
          'This link can no longer be used',
          'It was used already or is older than a day. Ask for a new one with `opentill vendor invite`.',
        );

  app.get<{ Params: { token: string } }>('/panel/invite/:token', { schema: { hide: true } }, async (request, reply) => {
    const found = await services.panelInvites.check(request.params.token);
    if (found.status !== 'valid') return unusable(reply, found.status);
    return sendPage(reply, {
      status: 200,
      title: 'Set your panel password',
      body: form(found.vendorName, found.email),
    });
  });

  app.get('/panel/invite-set', { schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, {
      status: 200,
      title: 'Password set',
      body: html`<p class="muted">opentill panel</p><h1>Your password is set</h1>
<div class="alert ok" role="status">Sign in to the panel with your vendor's e-mail and the new password.</div>
<p><a href="../panel">Sign in to the panel</a></p>`,
    }),
  );

  app.post<{ Params: { token: string }; Body: FormBody }>(
    '/panel/invite/:token',
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await services.panelInvites.check(request.params.token);
      if (found.status !== 'valid') return unusable(reply, found.status);
      try {
        await services.panelInvites.accept(
          request.params.token,
          (request.body as FormBody | undefined)?.password ?? '',
        );
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'LINK_EXPIRED') return unusable(reply, 'used');
        return sendPage(reply, {
          status: 400,
          title: 'Set your panel password',
          body: form(found.vendorName, found.email, err.message),
        });
      }
      // A reload of the answer must not post again: the page that says it is done is a GET of its own.
      return reply.redirect('../invite-set', 303);
    },
  );
}
