import { html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';
import type { ActionError, PanelRouting } from './panel-routing.ts';

/**
 * How an act on a subscription's page (pause, resume, seats) answers a refusal: no such transaction is
 * the transactions' 404; anything else, a page titled for the act with the error and the way back.
 */
export const transactionActRefused =
  ({ page, notFound }: Pick<PanelRouting, 'page' | 'notFound'>, title: string): ActionError =>
  (reply, session, environment, error, _form, failure) =>
    failure.code === 'NOT_FOUND'
      ? notFound(reply, session, environment, 'transactions', 'such transaction')
      : page(
          reply,
          session,
          environment,
          'transactions',
          title,
          html`<p><a href="${panelHref('/panel/transactions', environment)}">← All transactions</a></p>`,
          { status: 400, error },
        );
