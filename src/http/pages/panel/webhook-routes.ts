import type { FastifyReply } from 'fastify';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { Environment } from '../../../domain/model.ts';
import { invalidInput } from '../../../domain/errors.ts';
import { cookieOf, SESSION_COOKIE } from './panel-cookies.ts';
import type { PanelRouting } from './panel-routing.ts';
import { scopeOf } from './panel-routing.ts';
import { webhookLogContent } from './webhooks.ts';

/**
 * The panel's webhooks (docs/decisions.md §27): one form for adding, testing and removing endpoints
 * and replaying an event, and the delivery log. A new endpoint's secret goes through the one-time
 * flash, as a new credential's does, and the Developers page shows it once.
 */
export function registerWebhookPages(
  { services, view, action, page, to, noticeOf }: PanelRouting,
  developersPage: (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; error?: string },
  ) => Promise<unknown>,
) {
  const logPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string } = {},
  ) => {
    const scope = scopeOf(session, environment);
    const [events, endpoints] = await Promise.all([
      services.webhooks.log(scope, { limit: 100 }),
      services.webhooks.list(scope),
    ]);
    const content = webhookLogContent({ environment, csrf: session.csrfToken, events, endpoints });
    return page(reply, session, environment, 'developers', 'Webhook deliveries', content, extra);
  };

  view('/panel/webhooks', (session, environment, request, reply) =>
    logPage(reply, session, environment, { notice: noticeOf(request) }),
  );

  action(
    '/panel/webhooks',
    (reply, session, environment, error, form) =>
      form.action === 'replay'
        ? logPage(reply, session, environment, { status: 400, error })
        : developersPage(reply, session, environment, { status: 400, error }),
    async (_session, scope, form, reply, request) => {
      const id = form.id ?? '';
      switch (form.action) {
        case 'add': {
          const { secret } = await services.webhooks.add(scope, form.url ?? '');
          await services.panelFlashes.put(cookieOf(request, SESSION_COOKIE)!, secret);
          return to(reply, '/panel/developers', scope.environment, 'webhook');
        }
        case 'enable':
          await services.webhooks.enable(scope, id);
          return to(reply, '/panel/developers', scope.environment, 'webhook-enabled');
        case 'remove':
          await services.webhooks.remove(scope, id);
          return to(reply, '/panel/developers', scope.environment, 'webhook-removed');
        case 'test': {
          const event = await services.webhooks.test(scope, id);
          const done = event.status === 'DELIVERED' ? 'webhook-tested' : 'webhook-test-failed';
          return to(reply, '/panel/webhooks', scope.environment, done);
        }
        case 'replay':
          await services.webhooks.replay(scope, id);
          return to(reply, '/panel/webhooks', scope.environment, 'webhook-replayed');
        default:
          throw invalidInput('Unknown action.');
      }
    },
  );
}
