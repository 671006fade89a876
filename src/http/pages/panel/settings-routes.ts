import type { FastifyReply } from 'fastify';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { FormBody } from '../form-body.ts';
import type { PanelRouting } from './panel-routing.ts';
import { settingsContent } from './settings.ts';

/**
 * The panel's Settings section: the vendor's settings (the logo has its own route, logo-upload.ts),
 * and ending every admin tool session of the environment.
 */
export function registerSettingsPages({ services, view, action, page, to, noticeOf }: PanelRouting) {
  const settingsPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; form?: FormBody } = {},
  ) => {
    const vendor = await services.catalog.requireVendor(session.user.vendorId);
    return page(
      reply,
      session,
      environment,
      'settings',
      'Settings',
      settingsContent({
        environment,
        csrf: session.csrfToken,
        vendor,
        form: extra.form,
        operatorSells: services.config.sellerOfRecord.mode === 'operator',
        cancelNow: await services.portal.cancelNowAllowed(vendor.id),
        customerPause: await services.transactions.pauses.customerPause(vendor.id),
        customerSeats: await services.portal.customerSeats(vendor.id),
      }),
      extra,
    );
  };

  view('/panel/settings', (session, environment, request, reply) =>
    settingsPage(reply, session, environment, { notice: noticeOf(request) }),
  );

  action(
    '/panel/settings',
    (reply, session, environment, error, form) =>
      settingsPage(reply, session, environment, { status: 400, error, form }),
    async (session, scope, form, reply) => {
      await services.catalog.updateVendorSettings(session.user.vendorId, {
        allowConversion: form.allowConversion === 'yes',
        adminFrameOrigins: (form.adminFrameOrigins ?? '').split(/[\s,]+/).filter(Boolean),
        sellerName: form.sellerName ?? '',
        address: form.address ?? '',
        country: form.country ?? '',
        taxId: form.taxId ?? '',
        supportEmail: form.supportEmail ?? '',
        ...(form.removeLogo === 'yes' ? { logo: null } : {}),
      });
      // Saved after the settings that can be refused, so a refused save changes neither.
      await services.portal.setCancelNow(session.user.vendorId, form.cancelNow === 'yes');
      await services.transactions.pauses.setCustomerPause(session.user.vendorId, form.customerPause === 'yes');
      await services.portal.setCustomerSeats(session.user.vendorId, form.customerSeats === 'yes');
      return to(reply, '/panel/settings', scope.environment, 'settings');
    },
  );

  action(
    '/panel/admin-sessions',
    (reply, session, environment, error) => settingsPage(reply, session, environment, { status: 400, error }),
    async (_session, scope, _form, reply) => {
      await services.adminSessions.revokeAll(scope);
      return to(reply, '/panel/settings', scope.environment, 'admin-sessions');
    },
  );
}
