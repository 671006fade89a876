import { Type } from 'typebox';
import { formatMinor, minorToNumber } from '../../../domain/money/index.ts';
import { customerLocality } from '../../customer-locality.ts';
import { ErrorBody } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { publicRouteLimit } from '../../rate-limits.ts';

const PriceBody = Type.Object({
  productId: Type.String(),
  currency: Type.String(),
  price: Type.Number({ description: 'Total to pay, tax included' }),
  priceNet: Type.Number(),
  tax: Type.Number(),
  taxName: Type.String({ description: 'VAT, GST, Sales tax, ... or "" without tax' }),
  taxRate: Type.Number({ description: 'e.g. 0.19' }),
  priceS: Type.String(),
  priceNetS: Type.String(),
  taxS: Type.String(),
  country: Type.String(),
});

/** What `tc.getPrice` and `data-ts-price` show: the product's price for this customer, with tax. */
export function priceRoute(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.get(
    '/price/:productId',
    {
      config: publicRouteLimit(services.config.rateLimit.perAddressPerMinute),
      schema: {
        hide: true,
        params: Type.Object({ productId: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object(
          { zip: Type.Optional(Type.String({ maxLength: 12 })), country: Type.Optional(Type.String({ maxLength: 2 })) },
          { additionalProperties: false },
        ),
        response: { 200: PriceBody, '4xx': ErrorBody },
      },
    },
    async (request) => {
      const owner = await services.catalog.ownerOf(request.params.productId, environment);
      const locality = customerLocality(request, environment, request.query);
      const { quote } = await services.purchases.quote(owner, request.params.productId, locality);
      const c = quote.currency;
      return {
        productId: request.params.productId,
        currency: c,
        price: minorToNumber(quote.totalMinor, c),
        priceNet: minorToNumber(quote.netMinor, c),
        tax: minorToNumber(quote.taxMinor, c),
        taxName: quote.taxName,
        taxRate: Number(quote.taxRate),
        priceS: formatMinor(quote.totalMinor, c),
        priceNetS: formatMinor(quote.netMinor, c),
        taxS: formatMinor(quote.taxMinor, c),
        country: locality.country,
      };
    },
  );
}
