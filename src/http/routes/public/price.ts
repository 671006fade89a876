import { Type } from 'typebox';
import { formatMinor, minorToNumber } from '../../../domain/money/index.ts';
import { customerLocality } from '../../customer-locality.ts';
import { ErrorBody } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { publicRouteLimit } from '../../rate-limits.ts';

const money = (description: string, example: number) => Type.Number({ description, examples: [example] });
const text = (description: string, example: string) => Type.String({ description, examples: [example] });

const PriceBody = Type.Object(
  {
    productId: text('The product (or customized product) asked about.', 'TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'),
    currency: text("The customer's currency: ISO 4217 code.", 'EUR'),
    price: money('Total to pay, tax included', 22.02),
    priceNet: money('Net price, before tax.', 18.5),
    tax: money('Tax on the net price.', 3.52),
    taxName: text('VAT, GST, Sales tax, ... or "" without tax', 'VAT'),
    taxRate: money('The tax rate as a decimal fraction, e.g. 0.19', 0.19),
    priceS: text("price with exactly the currency's decimals.", '22.02'),
    priceNetS: text("priceNet with exactly the currency's decimals.", '18.50'),
    taxS: text("tax with exactly the currency's decimals.", '3.52'),
    country: text('The country the price is for: ISO 3166-1 alpha-2 code.', 'DE'),
  },
  { description: "The product's price for this customer, tax included." },
);

/** What `tc.getPrice` and `data-ts-price` show: the product's price for this customer, with tax. */
export function priceRoute(app: HttpApp, { services, environment }: EnvironmentContext) {
  app.get(
    '/price/:productId',
    {
      config: publicRouteLimit(services.config.rateLimit.perAddressPerMinute),
      schema: {
        hide: true,
        operationId: 'getPublicPrice',
        params: Type.Object({
          productId: Type.String({
            maxLength: 100,
            description: 'The product or customized product id.',
            examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
          }),
        }),
        querystring: Type.Object(
          {
            zip: Type.Optional(
              Type.String({ maxLength: 12, description: 'A US ZIP code: refines the sales tax.', examples: ['10001'] }),
            ),
            country: Type.Optional(
              Type.String({
                maxLength: 2,
                description: "The customer's country (ISO 3166-1 alpha-2); absent: from the request's address.",
                examples: ['DE'],
              }),
            ),
          },
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
