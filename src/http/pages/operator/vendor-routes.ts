import type { Services } from '../../../services.ts';
import { nothingHere, type OperatorRouting } from './operator-routing.ts';
import { vendorContent, vendorsContent, type VendorRow } from './vendors.ts';

const rowOf = (services: Services, vendor: VendorRow['vendor']): VendorRow => ({
  vendor,
  fee: services.catalog.platformFeeOf(vendor),
});

/**
 * The console's Vendors (docs/decisions.md §26): every vendor, and per vendor enabling production and
 * its own platform fee, through the same domain calls as `opentill vendor enable-production` and `fee`.
 */
export function registerVendorPages({ services, view, action, page, to }: OperatorRouting) {
  view('/operator', async (session, environment, request, reply) => {
    const rows = (await services.catalog.listVendors()).map((v) => rowOf(services, v));
    return page(reply, { session, environment, request }, 'vendors', 'Vendors', vendorsContent(rows, environment));
  });

  const vendorPage = async (
    context: Parameters<OperatorRouting['page']>[1],
    reply: Parameters<OperatorRouting['page']>[0],
    id: string,
    options: { status?: number; error?: string; fee?: string } = {},
  ) => {
    const vendor = await services.catalog.findVendor(id);
    if (!vendor) return page(reply, context, 'vendors', 'Not found', nothingHere('such vendor'), { status: 404 });
    const content = vendorContent(rowOf(services, vendor), {
      environment: context.environment,
      csrf: context.session.csrfToken,
      fee: options.fee,
    });
    return page(reply, context, 'vendors', vendor.name, content, options);
  };

  view<{ id: string }>('/operator/vendors/:id', (session, environment, request, reply) =>
    vendorPage({ session, environment, request }, reply, request.params.id),
  );
  const refused: Parameters<typeof action<{ id: string }>>[2] = (err, session, environment, request, reply) =>
    vendorPage({ session, environment, request }, reply, request.params.id, {
      status: err.code === 'NOT_FOUND' ? 404 : 400,
      error: err.message,
      fee: ((request.body ?? {}) as { fee?: string }).fee,
    });

  action<{ id: string }>(
    '/operator/vendors/:id/production',
    async (_session, environment, _form, request, reply) => {
      await services.catalog.enableProduction(request.params.id);
      return to(reply, `/operator/vendors/${request.params.id}`, environment, 'production');
    },
    refused,
  );
  action<{ id: string }>(
    '/operator/vendors/:id/fee',
    async (_session, environment, form, request, reply) => {
      await services.catalog.setPlatformFee(request.params.id, form.fee?.trim() ? form.fee : null);
      return to(reply, `/operator/vendors/${request.params.id}`, environment, 'fee');
    },
    refused,
  );
}
