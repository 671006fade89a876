import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { html, sendPage } from './pages/layout.ts';

const STYLE = `
main{max-width:44rem}.lead{font-size:1.08rem}.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.8rem;margin:1.2rem 0}
.cards a{display:block;border:1px solid var(--line);border-radius:.6rem;padding:.9rem 1rem;color:inherit;text-decoration:none}
.cards a:hover,.cards a:focus{border-color:var(--accent);outline:none;box-shadow:0 0 0 3px #9db4f0}
.cards strong{display:block;color:var(--accent);margin-bottom:.2rem}.cards span{color:var(--muted);font-size:.92rem}
.logo{font-weight:700;letter-spacing:-.01em;font-size:1.05rem;color:var(--accent)}ul.facts{margin:.6rem 0 0}ul.facts li{margin:.2rem 0}
`;

export const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2550c8"/><path d="M9 11h14M16 11v12" stroke="#fff" stroke-width="3.5" stroke-linecap="round"/></svg>';

/**
 * `/`: what this server is, and the three places a visitor goes from here: the vendor panel, the API
 * reference and the health check. Server-rendered in the pages' one layout; nothing on it is secret.
 */
export function registerLandingPage(app: FastifyInstance, services: Services) {
  const { baseUrl, sandboxUrl } = services.config;
  // Browsers ask every site for one; a small mark in the pages' accent colour rather than a 404 in the console.
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) =>
    reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(FAVICON),
  );
  app.get('/', { schema: { hide: true } }, (_request, reply) =>
    sendPage(reply, {
      status: 200,
      title: 'Payments and subscriptions for software vendors',
      style: STYLE,
      body: html`<p class="logo">opentill</p>
        <h1>Payments and subscriptions for software vendors</h1>
        <p class="lead">
          opentill is an open-source, self-hostable payment platform. Sell one-time purchases, subscriptions and stored payment methods from
          your own site, with a hosted checkout, invoices, licence keys and a JSON API to manage every transaction.
        </p>
        <nav class="cards" aria-label="Where to go">
          <a href="/panel"><strong>Vendor panel</strong><span>Sign in or create an account: products, API credentials, transactions, settings.</span></a>
          <a href="/docs"><strong>API reference</strong><span>The Transaction Management API and the public price endpoint (OpenAPI 3.1).</span></a>
          <a href="/healthz"><strong>Health check</strong><span>Whether the server answers and which processor takes payments; /readyz checks the database too.</span></a>
        </nav>
        <h2>This server</h2>
        <ul class="facts">
          <li>Production API: <code>${baseUrl}/v1</code></li>
          <li>Sandbox API: <code>${sandboxUrl}/v1</code>, with virtual cards and a clock you can move forward</li>
          <li>OpenAPI document: <a href="/openapi.json">/openapi.json</a></li>
        </ul>
        <p class="muted">Operators: <code>opentill --help</code> lists the command-line tool (vendors, products, credentials, invites to the panel).</p>`,
    }),
  );
}
