import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';

/**
 * Request and response schemas of the v1 API: they validate input, let fast-json-stringify
 * serialize output (except on the routes that take `stringified`), and make the OpenAPI document.
 */
const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Error name, e.g. INVALID_INPUT' }),
    message: Type.String({ description: 'What is wrong and how to fix it' }),
    requestId: Type.Optional(
      Type.String({
        description: 'The id of this request (also in the X-Request-Id header): quote it when asking for help',
      }),
    ),
  },
  { $id: 'Error' },
);

const amountFields = {
  netPrice: Type.Number(),
  netPriceS: Type.String({ description: "netPrice with exactly the currency's decimals" }),
  netPriceInUSD: Type.Number(),
  netPriceInUSDS: Type.String(),
  tax: Type.Number(),
  taxS: Type.String(),
  currency: Type.String(),
};

const headFields = {
  id: Type.String(),
  createDate: Type.String({ format: 'date-time' }),
  email: Type.String(),
};

const commonFields = {
  productId: Type.String(),
  productName: Type.String(),
  transactionType: Type.String({ enum: ['ONETIME', 'SUBSCRIPTION', 'VAULTED'] }),
  transactionStatus: Type.String(),
  chargeFrequency: nullable(Type.String()),
  country: Type.String(),
  lastCharge: nullable(Type.String()),
};

const tailFields = {
  payload: nullable(Type.String()),
  whoCanceled: nullable(Type.String()),
};

export const Entry = Type.Object({
  id: Type.String(),
  type: Type.String(),
  createDate: Type.String(),
  taxAmount: Type.String(),
  income: Type.String(),
  incomeCurrency: Type.String(),
  taxRate: Type.String(),
  currency: Type.String(),
  amountTotal: Type.String(),
  affiliateIncome: Type.String(),
  affiliateIncomeCurrency: Type.String(),
});

export const ListedTransaction = Type.Object({
  ...headFields,
  assignedEmail: nullable(Type.String()),
  ...commonFields,
  nextCharge: Type.Optional(nullable(Type.String({ description: 'Absent for one-time transactions' }))),
  ...tailFields,
  ...amountFields,
});
export const TransactionWithEntries = Type.Object({
  ...headFields,
  assignedEmail: nullable(Type.String()),
  ...commonFields,
  ...tailFields,
  ...amountFields,
  entries: Type.Array(Entry),
});
export const UpdatedTransaction = Type.Object({
  ...headFields,
  assignEmail: nullable(Type.String()),
  ...commonFields,
  ...tailFields,
  ...amountFields,
});

export const ChangedTransaction = Type.Object({
  assignEmail: nullable(Type.String()),
  assignedEmail: nullable(Type.String()),
  changeStatus: nullable(Type.String()),
  changedStatus: nullable(Type.String()),
  chargeFrequency: nullable(Type.String()),
  country: Type.String(),
  createDate: Type.String(),
  email: Type.String(),
  id: Type.String(),
  lastCharge: nullable(Type.String()),
  nextCharge: Type.Optional(nullable(Type.String({ description: 'Absent for one-time transactions' }))),
  payload: nullable(Type.String()),
  productId: Type.String(),
  productName: Type.String(),
  transactionStatus: Type.String(),
  transactionType: Type.String(),
  whoCanceled: nullable(Type.String()),
});

export const RefundRecord = Type.Object({
  TCFee: Type.Number({ description: 'The platform fee' }),
  amountTotal: Type.Number(),
  currency: Type.String(),
  externalId: Type.String(),
  hashId: Type.String(),
  id: Type.String(),
  incomeCurrency: Type.String(),
  invoiceLink: Type.String(),
  paymentProvider: Type.String(),
  refundable: Type.Boolean(),
  taxAmount: Type.Number(),
  timestamp: Type.Integer(),
  transactionFee: Type.Number(),
  vendorIncome: Type.Number(),
  country: Type.String(),
});

export const UrlResult = Type.Object({ url: Type.String() });

/**
 * The body of a route that the original API calls without one (refund, cancel): absent, it is `null`;
 * sent, an object of the fields the route knows and no other, so a client never silently gets
 * something other than it asked for (docs/decisions.md §1, "Beyond the seed").
 */
export const optionalBody = <T extends TSchema>(body: T) => Type.Union([body, Type.Null()]);

/** The route's preValidation with `optionalBody`: no body at all is `null`, which the schema takes. */
export function absentBodyIsNull(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
  if (request.body === undefined) request.body = null;
  done();
}

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String({ maxLength: 32 })], {
        description:
          "Gross amount to refund, in the transaction's currency; at most what is left of the payment. Absent: all that is left.",
      }),
    ),
    currency: Type.Optional(
      Type.String({ minLength: 3, maxLength: 3, description: "If given, must be the payment's currency." }),
    ),
    entryId: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The payment (ledger entry id) to refund; by default the latest with something left.',
      }),
    ),
    reason: Type.Optional(
      Type.String({ maxLength: 500, description: 'Why, kept with the refund and shown to the vendor.' }),
    ),
  },
  {
    additionalProperties: false,
    description: "opentill's own, optional: refund part of a payment, or another than the latest.",
  },
);

export const CancelBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Nothing: cancel takes no fields.' },
);

export const Price = Type.Object({ currency: Type.String(), value: Type.Union([Type.Number(), Type.String()]) });
/** `prices` as the schema declares it (an array) or as the samples send it (a serialized string). */
export const Prices = Type.Union([Type.Array(Price), Type.String()]);

export const CustomizeBody = Type.Object(
  {
    prices: Prices,
    description: Type.Optional(Type.String({ maxLength: 10000 })),
    payload: Type.Optional(nullable(Type.String())),
    transactionIdToMigrate: Type.Optional(Type.String({ maxLength: 100 })),
    expiresIn: Type.Optional(Type.Number()),
    userFirstName: Type.Optional(Type.String({ maxLength: 200 })),
    userLastName: Type.Optional(Type.String({ maxLength: 200 })),
    userMail: Type.Optional(Type.String({ maxLength: 254 })),
  },
  { additionalProperties: false },
);

export const CustomizeResult = Type.Object({
  link: Type.String(),
  customizedProductId: Type.String(),
  customProductId: Type.String(),
});

export const ChargeVaultedBody = Type.Object(
  { prices: Prices, chargeDescription: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

export const VaultedChargeResult = Type.Object({
  currency: Type.String(),
  deactivation: Type.Boolean(),
  price: Type.Number(),
  priceS: Type.String(),
  taxValue: Type.Number(),
  taxValueS: Type.String(),
  netValue: Type.Number(),
  netValueS: Type.String(),
  status: Type.String({
    enum: ['SUCCESS', 'FAILED', 'PENDING'],
    description: 'PENDING (answered with 202): the provider has not confirmed yet; retry with the same Idempotency-Key',
  }),
  message: nullable(Type.String()),
});

export const UpdateTransactionBody = Type.Object(
  { assignEmail: Type.Optional(Type.String({ maxLength: 254 })), payload: Type.Optional(nullable(Type.String())) },
  { additionalProperties: false },
);

export const LicenceStatus = Type.Object({
  status: Type.String({ enum: ['ACTIVE', 'INACTIVE', 'NOT_FOUND'] }),
  productId: Type.String(),
  transactionId: nullable(Type.String()),
  licence: Type.String(),
});

export const Ok = Type.Object({
  id: Type.String(),
  transactionStatus: Type.String(),
  changed: Type.Optional(Type.Boolean()),
});

/** A money movement the payment provider has not confirmed yet (docs/decisions.md §10a). */
export const PendingBody = Type.Object({
  status: Type.Literal('PENDING'),
  message: Type.String({ description: 'What happens next: retry with the same Idempotency-Key to learn the outcome' }),
});

/** A response schema with the description the OpenAPI document shows for the answer. */
export const described = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description }) as T;

/** The error body under one status's description (no $id: each status is its own copy). */
const errorAnswer = (description: string) =>
  Type.Object(ErrorBody.properties, { description: `${description} The body says what is wrong and how to fix it.` });

export const errorResponses = {
  400: errorAnswer(
    'Bad input (INVALID_INPUT, USD_PRICE_REQUIRED, PAYLOAD_TOO_LONG, INVALID_EMAIL; an unknown field where the call refuses them), or an operation that does not fit the state of what it names (INVALID_STATE). Nothing was changed.',
  ),
  401: errorAnswer(
    'UNAUTHORIZED: the Authorization header is missing or is not a credential of this environment (a sandbox credential works only at the sandbox server, a production one only at production).',
  ),
  /** A production credential of a vendor that may not use production yet (an open sign-up; docs/decisions.md §19). */
  403: errorAnswer(
    'FORBIDDEN: production is not enabled for this vendor yet, or the seller may not sell now (suspended, or its identity is incomplete).',
  ),
  404: errorAnswer(
    "NOT_FOUND: no such record for this vendor and environment. Another vendor's record is also 404, so ids cannot be probed.",
  ),
  409: errorAnswer(
    'IDEMPOTENCY_CONFLICT: this Idempotency-Key was used with another body; or REQUEST_IN_PROGRESS / PAYMENT_PENDING: the first request with this key is still running (see Retry-After).',
  ),
  429: errorAnswer('RATE_LIMITED: too many requests from this credential or address; retry after Retry-After seconds.'),
};

/** The body of a call that takes none (archive a product): absent, empty, or `{}`. */
export const EmptyBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Nothing: this call takes no fields.' },
);

/**
 * Route option of the API's busiest routes: the presenter's object is written by JSON.stringify, not
 * by the serializer Fastify compiles from the response schema. Measured under load on the read by id,
 * in three alternating pairs of runs, the compiled serializer cost 10 µs of CPU more per request (113
 * against 102); alone in a loop the two cost the same, but the compiled code runs cold between
 * requests and the built-in does not. The schema still documents the answer, and
 * test/api/response-contract.test.ts holds every answer of these routes to it, no field more or less.
 */
export const stringified = { serializerCompiler: () => JSON.stringify } as const;
