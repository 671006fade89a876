import type { FastifyReply } from 'fastify';
import { paymentLink } from '../../../domain/catalog/index.ts';
import type { Environment } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { parsePriceText } from '../../../domain/catalog/index.ts';
import type { FormBody } from '../form-body.ts';
import { couponsContent, couponTermsFromForm } from './coupons.ts';
import { scopeOf, vendorLocale, type PanelRouting } from './panel-routing.ts';
import { productsContent } from './products.ts';
import { licenceFieldsOf } from './activation-limit-field.ts';
import { pricesAndSeatsOf } from './seats-field.ts';
import { registerProductFormActions } from './product-form-routes.ts';

/** The panel's Products and Coupons sections: the lists, and creating, editing and revoking. */
export function registerCatalogPages(routing: PanelRouting) {
  registerProductPages(routing);
  registerCouponPages(routing);
}

function registerProductPages({ services, view, action, page, to, noticeOf }: PanelRouting) {
  const productsPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; form?: FormBody; formOf?: string } = {},
  ) => {
    const scope = scopeOf(session, environment);
    const products = await services.catalog.listProducts(scope);
    const switches: Record<string, string[]> = {};
    for (const p of products)
      if (p.type === 'SUBSCRIPTION') switches[p.id] = await services.portal.switchesOf(scope, p.id);
    const content = productsContent({
      environment,
      csrf: session.csrfToken,
      products,
      switches,
      widgetUrl: `${services.config.baseUrl}/latest/widget${environment === 'sandbox' ? '.sandbox' : ''}.min.js`,
      paymentLink: (id) => paymentLink(services.urls.base(environment), id),
      form: extra.form,
      formOf: extra.formOf,
      locale: vendorLocale(reply.request),
    });
    return page(reply, session, environment, 'products', 'Products', content, extra);
  };

  view('/panel/products', (session, environment, request, reply) =>
    productsPage(reply, session, environment, { notice: noticeOf(request) }),
  );
  action(
    '/panel/products',
    (reply, session, environment, error, form) =>
      productsPage(reply, session, environment, { status: 400, error, form, formOf: 'new' }),
    async (_session, scope, form, reply) => {
      // Checked in the domain, as the API's and the CLI's are (src/domain/catalog/products.ts).
      const trialDays = form.trialDays ? Number(form.trialDays) : 0;
      await services.catalog.createProduct(scope, {
        name: form.name ?? '',
        description: form.description ?? '',
        type: form.type ?? '',
        chargeFrequency: form.type === 'SUBSCRIPTION' ? form.frequency : undefined,
        trialDays: form.type === 'SUBSCRIPTION' ? trialDays : 0,
        ...licenceFieldsOf(form),
        ...pricesAndSeatsOf(form),
      });
      return to(reply, '/panel/products', scope.environment, 'product');
    },
  );

  action(
    '/panel/products/edit',
    (reply, session, environment, error, form) =>
      productsPage(reply, session, environment, { status: 400, error, form, formOf: form.id }),
    async (_session, scope, form, reply) => {
      const trialDays = form.trialDays ? Number(form.trialDays) : undefined;
      await services.catalog.updateProduct(scope, form.id ?? '', {
        name: form.name ?? '',
        description: form.description,
        trialDays,
        ...licenceFieldsOf(form),
        ...pricesAndSeatsOf(form),
      });
      return to(reply, '/panel/products', scope.environment, 'product-saved');
    },
  );

  action(
    '/panel/products/switches',
    (reply, session, environment, error) => productsPage(reply, session, environment, { status: 400, error }),
    async (_session, scope, form, reply) => {
      const product = await services.catalog.readProduct(scope, form.id ?? '');
      const allowed = Object.keys(form)
        .filter((name) => name.startsWith('to-') && form[name] === 'yes')
        .map((name) => name.slice(3));
      await services.portal.setSwitches(scope, product.id, product.type === 'SUBSCRIPTION' ? allowed : []);
      return to(reply, '/panel/products', scope.environment, 'product-saved');
    },
  );
  registerProductFormActions({ services, action, to }, productsPage);
}

function registerCouponPages({ services, view, action, page, to, noticeOf }: PanelRouting) {
  const couponsPage = async (
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    extra: { status?: number; notice?: string | undefined; error?: string; form?: FormBody } = {},
  ) => {
    const scope = scopeOf(session, environment);
    const content = couponsContent({
      environment,
      csrf: session.csrfToken,
      coupons: await services.coupons.list(scope),
      products: await services.catalog.listProducts(scope),
      form: extra.form,
      locale: vendorLocale(reply.request),
    });
    return page(reply, session, environment, 'coupons', 'Coupons', content, extra);
  };

  view('/panel/coupons', (session, environment, request, reply) =>
    couponsPage(reply, session, environment, { notice: noticeOf(request) }),
  );
  action(
    '/panel/coupons',
    (reply, session, environment, error, form) =>
      couponsPage(reply, session, environment, {
        status: 400,
        error,
        form: form.action === 'create' ? form : undefined,
      }),
    async (_session, scope, form, reply) => {
      if (form.action === 'revoke') {
        await services.coupons.revoke(scope, form.id ?? '');
        return to(reply, '/panel/coupons', scope.environment, 'coupon-revoked');
      }
      const off = (form.off ?? '').trim();
      const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(off);
      await services.coupons.create(scope, {
        productId: form.productId ?? '',
        code: form.code ?? '',
        ...(percent ? { percentOff: percent[1] } : { amountsOff: parsePriceText(off) }),
        expiresAt: form.expiresAt ? `${form.expiresAt}T23:59:59.999Z` : undefined,
        ...couponTermsFromForm(form, await services.catalog.listProducts(scope)),
      });
      return to(reply, '/panel/coupons', scope.environment, 'coupon');
    },
  );
}
