import { Type, type Static } from 'typebox';
import type { Coupon } from '../../../domain/model.ts';
import { formatMinor, minorToNumber, usdFirst } from '../../../domain/money/index.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { absentBodyIsNull, described, EmptyBody, errorResponses, optionalBody } from '../../schemas.ts';
import { CouponBody, CouponParams, CreateCouponBody } from './coupon-schemas.ts';

/** opentill's own: not in the original API (docs/decisions.md §38). */
const OWN = { 'x-opentill-extension': true, tags: ['coupons'] } as const;
/** Coupons ask nothing of the time but their own dates: a sandbox request skips loading its clock. */
const timeless = { config: { timeless: true } };

function couponBody(c: Coupon): Static<typeof CouponBody> {
  return {
    id: c.id,
    productId: c.productId,
    code: c.code,
    percentOff: c.percentOff,
    amountsOff: Object.entries(c.amountsOff)
      .sort(([a], [b]) => usdFirst(a, b))
      .map(([currency, minor]) => ({
        currency,
        value: minorToNumber(minor, currency),
        valueS: formatMinor(minor, currency),
      })),
    duration: c.duration,
    durationPeriods: c.durationPeriods,
    maxRedemptions: c.maxRedemptions,
    redemptions: c.redemptions,
    maxPerCustomer: c.maxPerCustomer,
    otherProductIds: c.otherProductIds,
    frequencies: c.frequencies,
    firstPurchaseOnly: c.firstPurchaseOnly,
    startsAt: c.startsAt,
    expiresAt: c.expiresAt,
    revokedAt: c.revokedAt,
    createDate: c.createdAt,
  };
}

/**
 * /v1/coupons: list, read, create and revoke a vendor's coupons in the credential's environment, with
 * the panel's and the CLI's checks (src/domain/catalog/coupons.ts). Revoked, never deleted: purchases
 * refer to the coupon they were bought with.
 */
export function couponRoutes(app: HttpApp, { services }: EnvironmentContext) {
  app.get(
    '/coupons',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'listCoupons',
        summary: 'List your coupons',
        description: "This environment's coupons, oldest first, revoked ones included.",
        response: { 200: described(Type.Array(CouponBody), 'The coupons, oldest first.'), ...errorResponses },
      },
    },
    async (request) => (await services.coupons.list(request.scope)).map(couponBody),
  );
  app.get(
    '/coupons/:couponId',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'readCoupon',
        summary: 'Read one coupon',
        description: "With how many redemptions it has used. Another vendor's or environment's coupon is 404.",
        params: CouponParams,
        response: { 200: described(CouponBody, 'The coupon.'), ...errorResponses },
      },
    },
    async (request) => couponBody(await services.coupons.read(request.scope, request.params.couponId)),
  );
  couponWriteRoutes(app, services);
}

function couponWriteRoutes(app: HttpApp, services: EnvironmentContext['services']) {
  app.post(
    '/coupons',
    {
      ...timeless,
      schema: {
        ...OWN,
        operationId: 'createCoupon',
        summary: 'Create a coupon',
        description:
          'Checked as the panel and `opentill coupon create` check it. Send an Idempotency-Key header: a retry with the same key answers the same coupon; without one, a second coupon with the same code on the same product is refused.',
        body: CreateCouponBody,
        response: { 201: described(CouponBody, 'The coupon, created.'), ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.code(201).send(couponBody(await services.coupons.create(request.scope, request.body))),
  );
  app.post(
    '/coupons/:couponId/revoke',
    {
      ...timeless,
      preValidation: absentBodyIsNull,
      schema: {
        ...OWN,
        operationId: 'revokeCoupon',
        summary: 'Revoke a coupon',
        description:
          'No new purchase may use it. Subscriptions bought with it keep the discount it granted for the periods it covers. Revoking a revoked coupon changes nothing.',
        params: CouponParams,
        body: optionalBody(EmptyBody),
        response: { 200: described(CouponBody, 'The coupon, revoked.'), ...errorResponses },
      },
    },
    async (request) => couponBody(await services.coupons.withdraw(request.scope, request.params.couponId)),
  );
}
