import { html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';
import type { PanelRouting } from './panel-routing.ts';

const DONE = { revoke: 'licence-revoked', reissue: 'licence-reissued', deactivate: 'licence-instance-freed' } as const;

/**
 * The panel's acts on a purchase's licence key (docs/decisions.md §40): revoke, reissue, free an
 * instance. Each lands back on the transaction with its notice; sent twice, a revoke or a freed
 * instance changes nothing more (the second free finds no instance: not found).
 */
export function registerLicenceActions({ services, action, page, notFound }: PanelRouting) {
  for (const act of ['revoke', 'reissue', 'deactivate'] as const) {
    action(
      `/panel/transactions/:id/licence/${act}`,
      (reply, session, environment, error, _form, failure) =>
        failure.code === 'NOT_FOUND'
          ? notFound(reply, session, environment, 'transactions', 'such licence key or activation')
          : page(reply, session, environment, 'transactions', 'Licence key', html``, { status: 400, error }),
      async (_session, scope, form, reply, request) => {
        const id = (request.params as { id: string }).id;
        if (act === 'revoke') await services.licences.revoke(scope, id);
        else if (act === 'reissue') await services.licences.reissue(scope, id);
        else await services.licences.freeInstance(scope, id, form.instanceId ?? '');
        return reply.redirect(panelHref(`/panel/transactions/${id}`, scope.environment, { done: DONE[act] }), 303);
      },
    );
  }
}
