import type { TestVendor } from './test-app.ts';

/** A $9-a-month subscription with a 14-day trial: what the checkout-language tests buy and read the trial words of. */
export async function monthlyTrial(v: TestVendor, name = 'Atlas Cloud'): Promise<string> {
  const product = await v.product({
    type: 'SUBSCRIPTION',
    name,
    chargeFrequency: 'MONTHLY',
    trialDays: 14,
    prices: [{ currency: 'USD', value: 9 }],
  } as never);
  return product.id;
}
