import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { loadedOnce } from '../loaded-once.ts';
import type { Services } from '../services.ts';

/** Stands for the response's nonce in the page Scalar renders; replaced by a fresh one on every answer. */
const NONCE_MARK = 'opentill-docs-nonce';

/** opentill's look (src/http/pages/layout.ts) for Scalar's theme variables, and its system font: no web fonts fetched. */
const LOOK = `
.light-mode, .dark-mode {
  --scalar-font: system-ui, -apple-system, "Segoe UI", sans-serif;
  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
.light-mode {
  --scalar-color-1: #1a1a1a; --scalar-color-2: #5b6270; --scalar-color-3: #6b7280;
  --scalar-color-accent: #2550c8; --scalar-background-accent: #2550c81f;
  --scalar-background-1: #fff; --scalar-background-2: #f6f7f9; --scalar-background-3: #eceef2;
  --scalar-border-color: #d9dce1;
  /* HTTP method colours dark enough to read on white (WCAG AA 4.5:1); Scalar's own are lighter. */
  --scalar-color-green: #067647; --scalar-color-blue: #1d4ed8; --scalar-color-orange: #9a3412;
  --scalar-color-red: #b42318; --scalar-color-yellow: #854d0e; --scalar-color-purple: #6b21a8;
}
.dark-mode { --scalar-color-accent: #9db4f0; --scalar-background-accent: #9db4f01f; }
`;

/**
 * Scalar's header inputs are comboboxes that never say whether their list is open (ARIA requires
 * aria-expanded): each one gets aria-expanded="false" as it appears, until Scalar sets it itself.
 */
const COMBOBOX_STATE = `new MutationObserver(function(){document.querySelectorAll('[role="combobox"]:not([aria-expanded])').forEach(function(e){e.setAttribute('aria-expanded','false')})}).observe(document.documentElement,{subtree:true,childList:true});`;

/** Which credential goes to which server, in the server picker. */
const SERVER_WORDS = {
  production: 'Production: your production credential (real money)',
  sandbox: 'Sandbox: your sandbox credential (virtual money, test cards)',
};

/**
 * The servers the page offers, the first one chosen: production, or the sandbox when the page was
 * opened from a sandbox link (`/sandbox/docs`, which leads to `/docs/?env=sandbox`), so a sandbox
 * credential is tried at the sandbox. A script's JSON: `<` is escaped.
 */
export function serversFor(config: { baseUrl: string; sandboxUrl: string }, sandboxFirst: boolean): string {
  const production = { url: config.baseUrl, description: SERVER_WORDS.production };
  const sandbox = { url: config.sandboxUrl, description: SERVER_WORDS.sandbox };
  return JSON.stringify(sandboxFirst ? [sandbox, production] : [production, sandbox]).replace(/</g, '\\u003c');
}

const HIDDEN = { schema: { hide: true }, logLevel: 'warn' } as const;

const sandboxAsked = (request: FastifyRequest) => (request.query as { env?: unknown } | undefined)?.env === 'sandbox';

/** Scalar's page as opentill shows it: its look, no fonts, telemetry, agent or tools from scalar.com. */
const CONFIGURATION = {
  pageTitle: 'API reference · opentill',
  favicon: '/favicon.ico',
  nonce: NONCE_MARK,
  theme: 'none',
  customCss: LOOK,
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  defaultOpenAllTags: true,
  persistAuth: false,
  authentication: {
    preferredSecurityScheme: 'apiCredentials',
    securitySchemes: { apiCredentials: { value: 'API_LOGIN:API_PASSWORD' } },
  },
  // Its own copy of the document (serveDocumentCopy, below), as the plugin does when it reads @fastify/swagger.
  url: './openapi.json',
};

/**
 * The API reference at /docs: Scalar's Fastify plugin rendering the same OpenAPI document as
 * /openapi.json. Its script is the bundle inside the package, served at /docs/js/scalar.js (the
 * plugin's default, so nothing comes from a CDN); the page runs under a CSP that allows scripts from
 * this server and the response's nonce only, and fetches from this server and the API's two servers.
 * Scalar's web fonts, telemetry, "Ask AI" agent and developer tools are off: they would reach
 * scalar.com.
 */
export async function registerApiReference(app: FastifyInstance, { services }: { services: Services }) {
  const { config } = services;
  const apiOrigins = [...new Set([config.baseUrl, config.sandboxUrl].map((url) => new URL(url).origin))].join(' ');
  // A sandbox link to the reference; and /docs?env=sandbox keeps its query on the way to /docs/ (the plugin's own redirect drops it).
  // On this server when the sandbox is its /sandbox (the default); else at BASE_URL, where /docs is.
  const sandboxDocs =
    config.sandboxUrl === `${config.baseUrl}/sandbox` ? '/docs/?env=sandbox' : `${config.baseUrl}/docs/?env=sandbox`;
  app.get('/sandbox/docs', { schema: { hide: true } }, (_request, reply) => reply.redirect(sandboxDocs, 302));
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/docs?')) return reply.redirect(`/docs/${request.url.slice('/docs'.length)}`, 302);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('text/html'))
      return payload;
    const nonce = randomBytes(16).toString('base64');
    reply
      .header(
        'content-security-policy',
        [
          "default-src 'none'",
          `script-src 'self' 'nonce-${nonce}'`,
          // Scalar styles its components with style attributes and a stylesheet it injects at run time.
          "style-src 'self' 'unsafe-inline'",
          "img-src 'self' data:",
          "font-src 'self' data:",
          `connect-src 'self' ${apiOrigins}`,
          "base-uri 'none'",
          "form-action 'none'",
          "frame-ancestors 'none'",
        ].join('; '),
      )
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    // Zod, inside Scalar's bundle, tries `new Function` to see whether it may compile validators, which
    // the CSP refuses with an error in the console: told beforehand that it may not, it does not try.
    const jitless = `<script nonce="${NONCE_MARK}">globalThis.__zod_globalConfig = { jitless: true };${COMBOBOX_STATE}</script>\n    <script src=`;
    // The page's language, for screen readers (Scalar's page names none).
    // The server picker: sandbox first when asked (serversFor).
    const servers = `"_integration": "fastify",\n        "servers": ${serversFor(config, sandboxAsked(request))},`;
    return payload
      .replace('"_integration": "fastify",', servers)
      .replace(/<html(?![^>]*\slang=)/, '<html lang="en"')
      .replace('<script src=', jitless)
      .replaceAll(NONCE_MARK, nonce);
  });
  serveScalarWhenAsked(app);
  serveDocumentCopy(app);
}

/**
 * Scalar's plugin keeps its 5 MB script in a string (25 MB of memory once loaded): it is loaded, into an
 * app of its own, with the first request for the reference, and its answers are passed on unchanged.
 */
function serveScalarWhenAsked(app: FastifyInstance) {
  const reference = loadedOnce(async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
    await inner.register(scalar, { routePrefix: '/docs', configuration: CONFIGURATION as never });
    await inner.ready();
    return inner;
  });
  // '/docs/' answers '/docs' as well (the app ignores a trailing slash), which Scalar redirects to '/docs/'.
  for (const url of ['/docs/', '/docs/js/scalar.js'])
    app.get(url, HIDDEN, async (request, reply) => {
      const answer = await (await reference()).inject({ method: 'GET', url: request.url });
      const { location } = answer.headers;
      if (location !== undefined) return reply.redirect(String(location), answer.statusCode as 301);
      return reply.type(String(answer.headers['content-type'])).send(answer.payload);
    });
}

/** The document where Scalar's page reads it, as its plugin served it (/openapi.json stays where it is, src/http/app.ts). */
function serveDocumentCopy(app: FastifyInstance) {
  const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-methods': '*' };
  const download = (extension: string) => `filename=opentill-api.${extension}`;
  app.get('/docs/openapi.json', HIDDEN, async (_request, reply) =>
    reply.header('content-disposition', download('json')).headers(CORS).send(app.swagger()),
  );
  app.get('/docs/openapi.yaml', HIDDEN, async (_request, reply) =>
    reply
      .type('application/yaml')
      .header('content-disposition', download('yaml'))
      .headers(CORS)
      .send(app.swagger({ yaml: true })),
  );
}
