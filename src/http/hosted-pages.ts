import type { FastifyInstance } from 'fastify';
import type { LinkPurpose } from '../domain/hosted-links.ts';
import type { Environment } from '../domain/model.ts';
import type { Services } from '../services.ts';
import { html, sendPage } from './html.ts';

/**
 * The page behind the temporary URL of item 2 (the admin tool). It comes with the panel issue; for
 * now the URL resolves to a small page that already checks its token: valid, expired or forged.
 * Item 1's page is src/http/manage.
 */
const TITLES: Partial<Record<LinkPurpose, string>> = { admin: 'Transactions admin' };

export function registerHostedPages(app: FastifyInstance, services: Services, environment: Environment) {
  for (const purpose of ['admin'] as const) {
    app.get<{ Params: { token: string } }>(`/${purpose}/:token`, { schema: { hide: true } }, async (request, reply) => {
      const check = services.links.check(request.params.token, purpose, services.clock.now());
      const page = (status: number, title: string, text: string) => sendPage(reply, { status, title, body: html`<h1>${title}</h1><p>${text}</p>` });
      if (check.status === 'expired') return page(410, 'This link has expired', 'Ask for a new link: these links work for a limited time.');
      if (check.status === 'invalid' || check.claims.environment !== environment) {
        return page(404, 'This link is not valid', 'Check that you copied the whole link, or ask for a new one.');
      }
      return page(200, TITLES[purpose]!, 'This page is being built.');
    });
  }
}
