import type { FastifyReply } from 'fastify';
import type { FormBody } from '../form-body.ts';
import { nothingHere, type OperatorRefusal, type OperatorRouting } from './operator-routing.ts';
import { vendorContent, vendorsContent } from './vendors.ts';

type Context = Parameters<OperatorRouting['page']>[1];

/**
 * The console's Vendors (docs/decisions.md §24, §26): every vendor with its state, and per vendor
 * enabling production, suspending and resuming it, and its own platform fee, through the same domain
 * calls as `opentill vendor enable-production|suspend|resume|fee`.
 */
export function registerVendorPages({ services, view, action, page, to }: OperatorRouting) {
  view('/operator', async (session, environment, request, reply) => {
    const rows = await services.catalog.vendorStatuses();
    return page(reply, { session, environment, request }, 'vendors', 'Vendors', vendorsContent(rows, environment));
  });

  const vendorPage = async (
    context: Context,
    reply: FastifyReply,
    id: string,
    options: { status?: number; error?: string; form?: FormBody } = {},
  ) => {
    const vendor = await services.catalog.findVendor(id);
    if (!vendor) return page(reply, context, 'vendors', 'Not found', nothingHere('such vendor'), { status: 404 });
    const content = vendorContent(services.catalog.vendorStatus(vendor), {
      environment: context.environment,
      csrf: context.session.csrfToken,
      fee: options.form?.fee,
      reason: options.form?.reason,
    });
    return page(reply, context, 'vendors', vendor.name, content, options);
  };

  view<{ id: string }>('/operator/vendors/:id', (session, environment, request, reply) =>
    vendorPage({ session, environment, request }, reply, request.params.id),
  );
  const refused: OperatorRefusal<{ id: string }> = (err, session, environment, request, reply) =>
    vendorPage({ session, environment, request }, reply, request.params.id, {
      status: err.code === 'NOT_FOUND' ? 404 : 400,
      error: err.message,
      form: (request.body ?? {}) as FormBody,
    });

  const vendorAction = (what: string, done: string, run: (id: string, form: FormBody) => Promise<unknown>) =>
    action<{ id: string }>(
      `/operator/vendors/:id/${what}`,
      async (_session, environment, form, request, reply) => {
        await run(request.params.id, form);
        return to(reply, `/operator/vendors/${request.params.id}`, environment, done);
      },
      refused,
    );
  vendorAction('production', 'production', (id) => services.catalog.enableProduction(id));
  vendorAction('suspend', 'suspended', (id, form) =>
    services.catalog.suspendVendor(id, { reason: form.reason ?? null, stopRenewals: form.stopRenewals === 'yes' }),
  );
  vendorAction('resume', 'resumed', (id) => services.catalog.resumeVendor(id));
  vendorAction('fee', 'fee', (id, form) => services.catalog.setPlatformFee(id, form.fee?.trim() ? form.fee : null));
}
