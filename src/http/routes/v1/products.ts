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
import { seatsBody } from './seat-schemas.ts';

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
    activationLimit: product.activationLimit,
    prices: Object.entries(product.prices)
      .sort(([a], [b]) => usdFirst(a, b))
      .map(([currency, minor]) => ({
        currency,
        value: minorToNumber(minor, currency),
        valueS: formatMinor(minor, currency),
      })),
    seats: seatsBody(product.seats),
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
export function productRoutes(app: HttpApp, context: EnvironmentContext) {
  productReadRoutes(app, context);
  productWriteRoutes(app, context);
  productArchiveRoutes(app, context);
}

const presenter =
  ({ services, environment }: EnvironmentContext) =>
  (product: Product) =>
    productBody(product, services.urls.base(environment));

/** Reading and writing products asks nothing of the time: a sandbox request skips loading its clock. */
const timeless = { config: { timeless: true } };

function productReadRoutes(app: HttpApp, context: EnvironmentContext) {
  const { services } = context;
  const present = presenter(context);
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
        response: { 200: described(ProductBody, 'The product.'), ...errorResponses },
      },
    },
    async (request) => present(await services.catalog.readProduct(request.scope, request.params.productId)),
  );
}

function productWriteRoutes(app: HttpApp, context: EnvironmentContext) {
  const { services } = context;
  const present = presenter(context);
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
}

/** Archive and unarchive: the same call, each way. */
const ARCHIVE_CALLS = [
  {
    path: 'archive',
    operationId: 'archiveProduct',
    summary: 'Archive a product: stop selling it',
    description:
      'No new sale starts on it: its checkout, its price for the client script and customize-product refuse it. Nothing else changes: its transactions, licences and management pages work, and its subscriptions go on renewing. Archiving an archived product changes nothing. Products are never deleted.',
    answer: 'The product, archived.',
    archived: true,
  },
  {
    path: 'unarchive',
    operationId: 'unarchiveProduct',
    summary: 'Put an archived product on sale again',
    description: 'Its links and buttons sell again. On a product on sale, changes nothing.',
    answer: 'The product, on sale.',
    archived: false,
  },
] as const;

function productArchiveRoutes(app: HttpApp, context: EnvironmentContext) {
  const { services } = context;
  const present = presenter(context);
  for (const call of ARCHIVE_CALLS) {
    app.post(
      `/products/:productId/${call.path}`,
      {
        ...timeless,
        preValidation: absentBodyIsNull,
        schema: {
          ...OWN,
          operationId: call.operationId,
          summary: call.summary,
          description: call.description,
          params: ProductParams,
          body: optionalBody(EmptyBody),
          response: { 200: described(ProductBody, call.answer), ...errorResponses },
        },
      },
      async (request) => {
        const { scope, params } = request;
        const product = call.archived
          ? await services.catalog.archiveProduct(scope, params.productId)
          : await services.catalog.unarchiveProduct(scope, params.productId);
        return present(product);
      },
    );
  }
}
