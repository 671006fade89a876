import assert from 'node:assert/strict';
import type Stripe from 'stripe';

/** The error Stripe (here the stand-in) answers a call with; the test fails if the call succeeds. */
export async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError & { raw: any }> {
  try {
    await promise;
  } catch (e) {
    return e as Stripe.errors.StripeError & { raw: any };
  }
  assert.fail('expected Stripe to refuse');
}
