import { customerDetail, customersContent } from './customers.ts';
import { scopeOf, vendorLocale, type PanelRouting } from './panel-routing.ts';
import { PAGE_SIZE } from './transactions.ts';

/** The panel's Customers section: the list (searched by e-mail or ID, a page at a time) and one customer's purchases. */
export function registerCustomerPages({ services, view, page, notFound }: PanelRouting) {
  view('/panel/customers', async (session, environment, request, reply) => {
    const raw = request.query as { q?: unknown; page?: unknown };
    const q = typeof raw.q === 'string' ? raw.q.slice(0, 200) : '';
    const pageNumber = Math.min(
      10_000,
      Math.max(1, Number.parseInt(typeof raw.page === 'string' ? raw.page : '1', 10) || 1),
    );
    const { customers, total } = await services.dashboard.customers(scopeOf(session, environment), q, {
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
    });
    return page(
      reply,
      session,
      environment,
      'customers',
      'Customers',
      customersContent({ environment, q, customers, total, page: pageNumber, pageSize: PAGE_SIZE }),
    );
  });

  view<{ id: string }>('/panel/customers/:id', async (session, environment, request, reply) => {
    const customer = await services.dashboard.customer(scopeOf(session, environment), request.params.id);
    if (!customer) return notFound(reply, session, environment, 'customers', 'such customer');
    return page(
      reply,
      session,
      environment,
      'customers',
      customer.email,
      customerDetail({ environment, customer, locale: vendorLocale(request) }),
      {
        switchPath: '/panel/customers',
      },
    );
  });
}
