import type { IssuedCredential } from './domain/accounts/index.ts';
import type { Scope } from './domain/model.ts';
import type { Services } from './services.ts';

/**
 * On the very first start of an empty store: a demo vendor with sandbox products and a few sandbox
 * purchases, so a newcomer can call the API at once. Returns the sandbox credential (shown once).
 */
export interface DemoSeed {
  credential: IssuedCredential;
  /** The demo vendor's panel login; the password is shown once, at this first start. */
  panel: { email: string; password: string };
  /** The demo vendor and its one-time product: what the banner's commands name. */
  vendorId: string;
  productId: string;
}

export async function seedDemoIfEmpty(services: Services): Promise<DemoSeed | undefined> {
  if ((await services.catalog.listVendors()).length > 0) return undefined;
  const vendor = await services.catalog.createVendor({ name: 'Demo Software Ltd', email: 'owner@demo.opentill.test' });
  const scope: Scope = { vendorId: vendor.id, environment: 'sandbox' };
  const credential = await services.credentials.issue(scope);
  const panel = await services.panelInvites.createLogin(vendor.id);
  const licence = await services.catalog.createProduct(scope, {
    name: 'Demo App Pro (lifetime licence)',
    type: 'ONETIME',
    issuesLicences: true,
    prices: [
      { currency: 'USD', value: 49 },
      { currency: 'EUR', value: 45 },
    ],
  });
  const monthly = await services.catalog.createProduct(scope, {
    name: 'Demo App Team (monthly)',
    type: 'SUBSCRIPTION',
    chargeFrequency: 'MONTHLY',
    prices: [{ currency: 'USD', value: 19.99 }],
  });
  const trial = await services.catalog.createProduct(scope, {
    name: 'Demo App Business (yearly, 14-day trial)',
    type: 'SUBSCRIPTION',
    chargeFrequency: 'YEARLY',
    trialDays: 14,
    prices: [
      { currency: 'USD', value: 199 },
      { currency: 'GBP', value: 159 },
    ],
  });
  const usage = await services.catalog.createProduct(scope, {
    name: 'Demo API usage (vaulted card)',
    type: 'VAULTED',
    prices: [{ currency: 'USD', value: 0 }],
  });
  const card = { number: '4242424242424242', expMonth: 12, expYear: services.clock.now().getUTCFullYear() + 3 };
  const buyers = [
    { productId: licence.id, email: 'anna@example.com', firstName: 'Anna', lastName: 'Schmidt', country: 'DE' },
    {
      productId: monthly.id,
      email: 'bob@example.com',
      firstName: 'Bob',
      lastName: 'Jones',
      country: 'US',
      region: 'CA',
    },
    { productId: trial.id, email: 'chloe@example.com', firstName: 'Chloe', lastName: 'Smith', country: 'GB' },
    { productId: usage.id, email: 'bob@example.com', firstName: 'Bob', lastName: 'Jones', country: 'US', region: 'CA' },
  ];
  // A sandbox on Stripe's test mode takes cards only in the browser: its demo has products, no purchases.
  const seeded = { credential, panel, vendorId: vendor.id, productId: licence.id };
  if (services.payments.cardEntry('sandbox').kind !== 'form') return seeded;
  for (const buyer of buyers) await services.purchases.purchase(scope, { ...buyer, card });
  return seeded;
}
