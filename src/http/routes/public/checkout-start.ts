import { requireUsableCoupon } from '../../pages/checkout/coupon-attempts.ts';
import { Type } from 'typebox';
import { requireEmail, requirePayload } from '../../../domain/validation.ts';
import { checkoutUrl } from '../../pages/checkout/checkout-url.ts';
import { customerLocality } from '../../customer-locality.ts';
import { ErrorBody } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { publicRouteLimit } from '../../rate-limits.ts';
import { resolveLocale, supportedLocale, translator } from '../../../i18n/index.ts';

/**
 * `tc.buy`: checks the product can be bought and answers the checkout page's URL with the
 * prefill. No price travels from the browser: the checkout page prices on the server.
 */
export function checkoutStartRoute(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.post(
    '/checkout',
    {
      config: publicRouteLimit(services.config.rateLimit.perAddressPerMinute),
      schema: {
        hide: true,
        body: Type.Object(
          {
            productId: Type.String({ minLength: 1, maxLength: 100 }),
            firstName: Type.Optional(Type.String({ maxLength: 100 })),
            lastName: Type.Optional(Type.String({ maxLength: 100 })),
            email: Type.Optional(Type.String({ maxLength: 254 })),
            zipCode: Type.Optional(Type.String({ maxLength: 12 })),
            coupon: Type.Optional(Type.String({ maxLength: 64 })),
            payload: Type.Optional(Type.String()),
            nonEditableEmail: Type.Optional(Type.Boolean()),
            country: Type.Optional(Type.String({ maxLength: 2 })),
            // opentill's own: the buyer's language (data-ts-locale, tc.buy's locale), a BCP 47 tag such as "de" or "pt-BR".
            locale: Type.Optional(Type.String({ maxLength: 35 })),
            // opentill's own: a per-seat product's seats (data-ts-quantity, tc.buy's quantity), docs/decisions.md §39.
            quantity: Type.Optional(Type.String({ maxLength: 9 })),
          },
          { additionalProperties: false },
        ),
        response: {
          // opentill's own `label`: the overlay's name ("Checkout") in the buyer's language.
          200: Type.Object({ url: Type.String(), label: Type.String() }),
          '4xx': ErrorBody,
        },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.email) requireEmail(body.email);
      if (body.payload !== undefined) requirePayload(body.payload);
      const owner = await services.catalog.ownerOf(body.productId, environment);
      // A seller not selling now (suspended; production without its identity) is refused here, before any form (docs/decisions.md §24).
      await services.catalog.requireOpenForSale(owner);
      // Prices now, so an unknown, expired or unpriceable product fails here and not on the page.
      const { offer } = await services.purchases.quote(
        owner,
        body.productId,
        customerLocality(request, environment, { zip: body.zipCode, country: body.country }),
        undefined,
        undefined,
        body.quantity,
      );
      // A coupon is checked apart, under the checkout's limit on wrong codes (docs/decisions.md §14).
      if (body.coupon) await requireUsableCoupon(services, request.ip, owner, offer.product.id, body.coupon);
      // A language we do not speak is no error: the checkout then follows the browser's.
      const locale = supportedLocale(body.locale, { allowPseudo: true });
      const label = translator(resolveLocale([locale], request.headers['accept-language'])).t('checkout.checkoutLabel');
      return { url: checkoutUrl(services.urls.base(environment), body.productId, body, locale), label };
    },
  );
}
