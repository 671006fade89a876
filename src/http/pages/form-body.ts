import type { FastifyInstance } from 'fastify';

/** What a page's form posts: field name to value (the last one wins for a repeated name). */
export type FormBody = Record<string, string | undefined>;

/**
 * The pages' one form-body parser (application/x-www-form-urlencoded, 64 KB at most). Registered
 * once on the scope that holds the pages, so every page area parses forms the same way.
 */
export function registerFormBody(app: FastifyInstance) {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
