import type { paths } from './generated/openapi.ts';

/**
 * The bodies as opentill sends and takes them, read off the generated OpenAPI types
 * (generated/openapi.ts, `npm run sdk:types`): when a route's schema changes, these change with it.
 */
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Answer<Op, S extends number = 200> = Op extends { responses: { [K in S]: infer R } } ? JsonOf<R> : never;
type BodyOf<Op> = Op extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

type Get<P extends keyof paths> = paths[P] extends { get: infer Op } ? Op : never;
type Post<P extends keyof paths> = paths[P] extends { post: infer Op } ? Op : never;

export type WireListedTransaction = Answer<Get<'/v1/transactions/{email}'>>[number];
export type WireTransactionWithEntries = Answer<Get<'/v1/transaction/{transactionId}'>>;
export type WireEntry = WireTransactionWithEntries['entries'][number];
export type WireUpdatedTransaction = Answer<Post<'/v1/transaction/{transactionId}'>>;
export type WireChangedTransaction = Answer<Get<'/v1/changed-transactions'>>[number];
export type WireMarkedProcessed = Answer<Post<'/v1/changed-transactions/{transactionId}'>>;
export type WireCancelled = Answer<Post<'/v1/cancel-subscription/{transactionId}'>>;
export type WirePauseBody = NonNullable<BodyOf<Post<'/v1/pause-subscription/{transactionId}'>>>;
export type WirePauseResult = Answer<Post<'/v1/pause-subscription/{transactionId}'>>;
export type WireQuantityChange = Answer<Post<'/v1/update-quantity/{transactionId}'>>;
export type WireRefundRecord = Answer<Post<'/v1/refund-transaction/{transactionId}'>>[number];
export type WireRefundPending = Answer<Post<'/v1/refund-transaction/{transactionId}'>, 202>;
export type WireRefundBody = NonNullable<BodyOf<Post<'/v1/refund-transaction/{transactionId}'>>>;
export type WireCustomizeBody = BodyOf<Post<'/v1/customize-product/{productId}'>>;
export type WireCustomizeResult = Answer<Post<'/v1/customize-product/{productId}'>>;
export type WireChargeVaultedBody = BodyOf<Post<'/v1/charge-vaulted/{transactionId}'>>;
export type WireVaultedCharge = Answer<Post<'/v1/charge-vaulted/{transactionId}'>>;
export type WireLicenceStatus = Answer<Get<'/v1/check-licence/{productId}/{licence}'>>;
export type WireLicenceState = Answer<Get<'/v1/licences/{key}'>>;
export type WireActivatedLicence = Answer<Post<'/v1/licences/{key}/activate'>>;
export type WireUrlResult = Answer<Get<'/v1/generate-url-to-admin'>>;
export type WireClockReading = Answer<Get<'/v1/clock'>>;
export type WireError = Answer<Get<'/v1/clock'>, 404>;
export type WirePublicPrice = Answer<Get<'/public/v1/price/{productId}'>>;
export type WireProduct = Answer<Get<'/v1/products/{productId}'>>;
export type WireCreateProductBody = BodyOf<Post<'/v1/products'>>;
export type WireUpdateProductBody = BodyOf<Post<'/v1/products/{productId}'>>;
export type WireCoupon = Answer<Get<'/v1/coupons/{couponId}'>>;
export type WireCreateCouponBody = BodyOf<Post<'/v1/coupons'>>;
