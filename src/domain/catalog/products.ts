import { invalidInput, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ChargeFrequency, Product, Scope, TransactionType } from '../model.ts';
import { RECURRING_FREQUENCIES, TRANSACTION_TYPES } from '../model.ts';
import { parsePriceList } from '../money/index.ts';
import type { CatalogDeps } from './catalog-deps.ts';

export interface NewProduct {
  name: string;
  description?: string | undefined;
  type: string;
  chargeFrequency?: string | undefined;
  trialDays?: number | undefined;
  issuesLicences?: boolean | undefined;
  /** As the API takes them: [{currency, value}] with net prices; USD mandatory. */
  prices: unknown;
}

/** A product's name, trimmed: required, at most 200 characters. */
function productName(input: string | undefined): string {
  const name = input?.trim();
  if (!name) throw invalidInput('A product needs a name.');
  if (name.length > 200) throw invalidInput('A product name has at most 200 characters.');
  return name;
}

/** A trial is a whole number of days up to a year, and only a subscription has one. */
function checkTrial(trialDays: number, type: TransactionType): void {
  if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > 365)
    throw invalidInput('trialDays must be a whole number from 0 to 365.');
  if (trialDays > 0 && type !== 'SUBSCRIPTION') throw invalidInput('Only subscriptions can have a trial.');
}

export async function createProduct(deps: CatalogDeps, scope: Scope, input: NewProduct): Promise<Product> {
  const name = productName(input.name);
  const type = input.type?.toUpperCase() as TransactionType;
  if (!TRANSACTION_TYPES.includes(type)) throw invalidInput('type must be ONETIME, SUBSCRIPTION or VAULTED.');
  let chargeFrequency: ChargeFrequency = 'UNKNOWN';
  if (type === 'SUBSCRIPTION') {
    chargeFrequency = (input.chargeFrequency ?? 'MONTHLY').toUpperCase() as ChargeFrequency;
    if (!RECURRING_FREQUENCIES.includes(chargeFrequency)) {
      throw invalidInput('chargeFrequency must be DAILY, WEEKLY, MONTHLY, HALF_YEARLY or YEARLY.');
    }
  }
  const trialDays = input.trialDays ?? 0;
  checkTrial(trialDays, type);
  const product: Product = {
    id: newId('product'),
    vendorId: scope.vendorId,
    environment: scope.environment,
    name,
    description: input.description?.trim() ?? '',
    type,
    chargeFrequency,
    trialDays,
    issuesLicences: input.issuesLicences ?? false,
    prices: parsePriceList(input.prices),
    createdAt: deps.clock.now().toISOString(),
  };
  await deps.store.products.insert(product);
  return product;
}

/**
 * New name, description, prices, trial or licences for a product. Its type and frequency stay:
 * subscriptions sold on it renew on their schedule, at the new price (the renewal re-prices).
 */
export async function updateProduct(
  deps: CatalogDeps,
  scope: Scope,
  id: string,
  input: Omit<NewProduct, 'type' | 'chargeFrequency'>,
): Promise<Product> {
  const current = await deps.store.products.find(scope, id);
  if (!current) throw notFound(`Product ${id}`);
  const name = productName(input.name);
  const trialDays = input.trialDays ?? current.trialDays;
  checkTrial(trialDays, current.type);
  const fields = {
    name,
    description: input.description?.trim() ?? current.description,
    trialDays,
    issuesLicences: input.issuesLicences ?? current.issuesLicences,
    prices: parsePriceList(input.prices),
  };
  await deps.store.transaction((repos) => repos.products.update(scope, id, fields));
  return { ...current, ...fields };
}
