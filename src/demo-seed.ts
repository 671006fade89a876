import type { IssuedCredential } from './domain/accounts/index.ts';
import type { PurchaseRequest } from './domain/checkout/index.ts';
import type { Scope } from './domain/model.ts';
import type { Services } from './services.ts';

const DAY_MS = 86_400_000;

/**
 * On the very first start of an empty store: a demo vendor with sandbox products and a few sandbox
 * purchases over the last 30 days, so a newcomer can call the API at once and the overview's chart
 * has days to show. Returns the sandbox credential (shown once).
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
  // A sandbox on Stripe's test mode takes cards only in the browser: its demo has products, no purchases.
  const seeded = { credential, panel, vendorId: vendor.id, productId: licence.id };
  if (services.payments.cardEntry('sandbox').kind !== 'form') return seeded;
  await seedPurchases(services, scope, { licence: licence.id, monthly: monthly.id, trial: trial.id, usage: usage.id });
  return seeded;
}

/** The demo's buyers, a few days apart over the overview's 30 days; the trial's still running (it lasts 14). */
function demoPurchases(p: {
  licence: string;
  monthly: string;
  trial: string;
  usage: string;
}): [number, PurchaseRequest][] {
  const buyer = (email: string, firstName: string, lastName: string, country: string, region?: string) => ({
    email,
    firstName,
    lastName,
    country,
    region,
  });
  const bob = buyer('bob@example.com', 'Bob', 'Jones', 'US', 'CA');
  return [
    [28, { productId: p.licence, ...buyer('anna@example.com', 'Anna', 'Schmidt', 'DE') }],
    [25, { productId: p.monthly, ...bob }],
    [22, { productId: p.licence, ...buyer('marta@example.com', 'Marta', 'García', 'ES') }],
    [19, { productId: p.monthly, ...buyer('sam@example.com', 'Sam', 'Lee', 'US', 'NY') }],
    [15, { productId: p.usage, ...bob }],
    [12, { productId: p.licence, ...buyer('liam@example.com', 'Liam', 'Walsh', 'IE') }],
    [8, { productId: p.monthly, ...buyer('ava@example.com', 'Ava', 'Brown', 'US', 'TX') }],
    [4, { productId: p.trial, ...buyer('chloe@example.com', 'Chloe', 'Smith', 'GB') }],
    [1, { productId: p.licence, ...buyer('noah@example.com', 'Noah', 'Müller', 'DE') }],
  ];
}

/**
 * Each purchase on its day: the demo vendor's sandbox clock set back that far while it is made (the
 * vendor is new and nothing else runs in its sandbox), then put right.
 */
async function seedPurchases(services: Services, scope: Scope, products: Parameters<typeof demoPurchases>[0]) {
  const card = { number: '4242424242424242', expMonth: 12, expYear: services.clock.now().getUTCFullYear() + 3 };
  try {
    for (const [daysAgo, purchase] of demoPurchases(products)) {
      services.clock.setOffset(scope.vendorId, -daysAgo * DAY_MS);
      await services.purchases.purchase(scope, { ...purchase, card });
    }
  } finally {
    services.clock.setOffset(scope.vendorId, 0);
  }
}
