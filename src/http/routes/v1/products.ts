import { Type, type Static } from 'typebox';
import { paymentLink } from '../../../domain/catalog/index.ts';
import type { Product } from '../../../domain/model.ts';
import { formatMinor, minorToNumber, usdFirst } from '../../../domain/money/index.ts';
import { absentBodyIsNull, described, EmptyBody, errorResponses, optionalBody } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import {
  CreateProductBody,
  ListProductsQuery,
  ProductBody,
  ProductParams,
  UpdateProductBody,
} from './product-schemas.ts';

/** opentill's own: not in the original API (docs/decisions.md §28). */
const OWN = { 'x-opentill-extension': true, tags: ['products'] } as const;

/** A product in the API's shape: prices as the seed's Price (net, major unit) with a string twin. */
function productBody(product: Product, hostedUrl: string): Static<typeof ProductBody> {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    type: product.type,
    chargeFrequency: product.chargeFrequency,
    trialDays: product.trialDays,
    issuesLicences: product.issuesLicences,
    prices: Object.entries(product.prices)
      .sort(([a], [b]) => usdFirst(a, b))
      .map(([currency, minor]) => ({
        currency,
        value: minorToNumber(minor, currency),
        valueS: formatMinor(minor, currency),
      })),
    paymentLink: paymentLink(hostedUrl, product.id),
    createDate: product.createdAt,
    archived: product.archivedAt !== null,
    archivedAt: product.archivedAt,
  };
}

/**
 * /v1/products: list, read, create, update and archive a vendor's products in the credential's
 * environment, with the panel's and the CLI's checks (src/domain/catalog/products.ts). Archive,
 * never delete: transactions refer to products.
 */
export function productRoutes(app: HttpApp, { services, environment }: EnvironmentContext) {
  const present = (product: Product) => productBody(product, services.urls.base(environment));
  const one = described(ProductBody, 'The product.');
  const timeless = { config: { timeless: true } };

  app.get(
    '/products',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'listProducts',
        summary: 'List your products',
        description: "This environment's products, oldest first, archived ones included unless `archived=false`.",
        querystring: ListProductsQuery,
        response: { 200: described(Type.Array(ProductBody), 'The products, oldest first.'), ...errorResponses },
      },
    },
    async (request) => {
      const wanted = request.query.archived;
      const products = await services.catalog.listProducts(request.scope);
      return products
        .filter((p) => wanted === undefined || (p.archivedAt !== null) === (wanted === 'true'))
        .map(present);
    },
  );

  app.get(
    '/products/:productId',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'readProduct',
        summary: 'Read one product',
        description: "Archived or not. Another vendor's or environment's product is 404.",
        params: ProductParams,
        response: { 200: one, ...errorResponses },
      },
    },
    async (request) => present(await services.catalog.readProduct(request.scope, request.params.productId)),
  );

  app.post(
    '/products',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'createProduct',
        summary: 'Create a product',
        description:
          'Checked as the panel and `opentill product create` check it. Send an Idempotency-Key header: a retry with the same key answers the same product instead of making a second one.',
        body: CreateProductBody,
        response: { 201: described(ProductBody, 'The product, created.'), ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.code(201).send(present(await services.catalog.createProduct(request.scope, request.body))),
  );

  app.post(
    '/products/:productId',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'updateProduct',
        summary: 'Change a product',
        description:
          'New name, description, prices, trial, licences or period; what is left out stays. Past transactions keep the price and name they were sold with; subscriptions renew at the new price. The period may change only while nothing was sold on the product (400 INVALID_STATE after).',
        params: ProductParams,
        body: UpdateProductBody,
        response: { 200: described(ProductBody, 'The product as changed.'), ...errorResponses },
      },
    },
    async (request) =>
      present(await services.catalog.updateProduct(request.scope, request.params.productId, request.body)),
  );

  app.post(
    '/products/:productId/archive',
    {
      ...timeless,
      preValidation: absentBodyIsNull,
      schema: {
        ...OWN,
        operationId: 'archiveProduct',
        summary: 'Archive a product: stop selling it',
        description:
          'No new sale starts on it: its checkout, its price for the client script and customize-product refuse it. Nothing else changes: its transactions, licences and management pages work, and its subscriptions go on renewing. Archiving an archived product changes nothing. Products are never deleted.',
        params: ProductParams,
        body: optionalBody(EmptyBody),
        response: { 200: described(ProductBody, 'The product, archived.'), ...errorResponses },
      },
    },
    async (request) => present(await services.catalog.archiveProduct(request.scope, request.params.productId)),
  );

  app.post(
    '/products/:productId/unarchive',
    {
      ...timeless,
      preValidation: absentBodyIsNull,
      schema: {
        ...OWN,
        operationId: 'unarchiveProduct',
        summary: 'Put an archived product on sale again',
        description: 'Its links and buttons sell again. On a product on sale, changes nothing.',
        params: ProductParams,
        body: optionalBody(EmptyBody),
        response: { 200: described(ProductBody, 'The product, on sale.'), ...errorResponses },
      },
    },
    async (request) => present(await services.catalog.unarchiveProduct(request.scope, request.params.productId)),
  );
}
