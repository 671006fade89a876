import type { FastifyReply } from 'fastify';
import type { PayoutStatement } from '../../../domain/books/index.ts';
import type { Environment } from '../../../domain/model.ts';
import type { Services } from '../../../services.ts';
import { html } from '../layout.ts';
import { vendorLocale } from '../panel/panel-routing.ts';
import { statementContent } from '../panel/payouts.ts';
import { sendStatement } from '../statement-downloads.ts';
import { balancesContent, markPaidForm, newStatementsForm, statementsContent } from './books.ts';
import { operatorHref } from './operator-layout.ts';
import { nothingHere, type OperatorRouting } from './operator-routing.ts';

/** Today in UTC, the default last day of a new statement. */
const today = (services: Services) => services.clock.now().toISOString().slice(0, 10);

/**
 * The console's Balances and Payouts (docs/decisions.md §22, §26): every vendor's balance, making a
 * vendor's statements, each statement with its CSV and PDF, and marking it paid. The same domain calls
 * as `opentill payouts`.
 */
export function registerBookPages(routing: OperatorRouting) {
  const { services, view, page } = routing;
  const vendorParam = (query: unknown) => (query as { vendor?: string }).vendor || undefined;

  view('/operator/balances', async (session, environment, request, reply) => {
    const balances = await services.payouts.everyBalance(environment, vendorParam(request.query));
    const content = balancesContent({
      environment,
      balances,
      holdDays: services.config.payoutHoldDays,
      locale: vendorLocale(request),
    });
    return page(reply, { session, environment, request }, 'balances', 'Balances', content);
  });

  const payoutsPage = async (
    context: Parameters<OperatorRouting['page']>[1],
    reply: FastifyReply,
    form: { vendor?: string | undefined; until?: string | undefined; error?: string; status?: number } = {},
  ) => {
    const { environment, request } = context;
    const chosen = form.vendor ?? vendorParam(request.query);
    const all = await services.catalog.listVendors();
    const statements = (
      await Promise.all(
        (chosen ? all.filter((v) => v.id === chosen) : all).map(async (vendor) =>
          (await services.payouts.list(vendor.id, environment)).map((statement) => ({ vendor, statement })),
        ),
      )
    )
      .flat()
      .sort((a, b) => b.statement.createdAt.localeCompare(a.statement.createdAt));
    const csrf = context.session.csrfToken;
    const until = form.until ?? today(services);
    const content = all.length
      ? html`${newStatementsForm({ environment, csrf, vendors: all, vendorId: chosen, until })}${statementsContent({ environment, statements, locale: vendorLocale(request) })}`
      : nothingHere('vendor to pay yet');
    return page(reply, context, 'payouts', 'Payouts', content, { status: form.status, error: form.error });
  };
  view('/operator/payouts', (session, environment, request, reply) =>
    payoutsPage({ session, environment, request }, reply),
  );
  routing.action(
    '/operator/payouts',
    async (_session, environment, form, _request, reply) => {
      const made = await services.payouts.create(form.vendor ?? '', environment, form.until ?? '');
      return reply.redirect(
        operatorHref('/operator/payouts', environment, {
          vendor: form.vendor,
          done: made.length ? 'statements' : 'no-statements',
        }),
        303,
      );
    },
    (err, session, environment, request, reply) => {
      const form = (request.body ?? {}) as { vendor?: string; until?: string };
      const status = err.code === 'NOT_FOUND' ? 404 : 400;
      return payoutsPage({ session, environment, request }, reply, { ...form, error: err.message, status });
    },
  );
  registerStatementPages(routing);
}

/** One statement: its lines, its downloads, and marking it paid. */
function registerStatementPages({ services, view, action, page, to }: OperatorRouting) {
  // A statement of the other environment is not found here, as in the panel.
  const statementIn = async (id: string, environment: Environment) => {
    const statement = await services.payouts.find(id);
    return statement?.environment === environment ? statement : undefined;
  };
  const statementPage = async (
    context: Parameters<OperatorRouting['page']>[1],
    reply: FastifyReply,
    statement: PayoutStatement | undefined,
    options: { error?: string; status?: number } = {},
  ) => {
    if (!statement) return page(reply, context, 'payouts', 'Not found', nothingHere('such statement'), { status: 404 });
    const { environment, session, request } = context;
    const vendor = await services.catalog.findVendor(statement.vendorId);
    const href = (kind: string) => operatorHref(`/operator/payouts/${statement.id}/${kind}`, environment);
    const content = html`${statementContent(statement, { pdf: href('pdf'), csv: href('csv') }, vendorLocale(request))}${markPaidForm(statement, { environment, csrf: session.csrfToken })}`;
    const title = `${vendor?.name ?? statement.vendorId}: statement ${statement.number}, ${statement.currency}`;
    return page(reply, context, 'payouts', title, content, options);
  };

  view<{ id: string }>('/operator/payouts/:id', async (session, environment, request, reply) =>
    statementPage({ session, environment, request }, reply, await statementIn(request.params.id, environment)),
  );
  for (const kind of ['csv', 'pdf'] as const)
    view<{ id: string }>(`/operator/payouts/:id/${kind}`, async (session, environment, request, reply) => {
      const statement = await statementIn(request.params.id, environment);
      if (!statement) return statementPage({ session, environment, request }, reply, undefined);
      return sendStatement(services, reply, statement, kind);
    });
  action<{ id: string }>(
    '/operator/payouts/:id/paid',
    async (_session, environment, form, request, reply) => {
      const statement = await statementIn(request.params.id, environment);
      if (!statement) return statementPage({ session: _session, environment, request }, reply, undefined);
      await services.payouts.markPaid(statement.id, form.reference ?? '');
      return to(reply, `/operator/payouts/${statement.id}`, environment, 'paid');
    },
    async (err, session, environment, request, reply) =>
      statementPage({ session, environment, request }, reply, await statementIn(request.params.id, environment), {
        error: err.message,
        status: err.code === 'NOT_FOUND' ? 404 : 400,
      }),
  );
}
