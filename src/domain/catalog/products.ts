import { invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ChargeFrequency, Product, Scope, TransactionType } from '../model.ts';
import { RECURRING_FREQUENCIES, TRANSACTION_TYPES } from '../model.ts';
import { parsePriceList } from '../money/index.ts';
import { SaleRefused } from '../production-access.ts';
import { activationLimitField } from '../activation-limit.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { parseSeatPricing, updatedSeats } from './seats.ts';

/**
 * A product as the panel, the CLI and the API's `POST /v1/products` give it: every one of them is
 * checked here and nowhere else, so the three refuse the same things with the same words.
 */
export interface NewProduct {
  name: string;
  description?: string | undefined;
  type: string;
  chargeFrequency?: string | undefined;
  trialDays?: number | undefined;
  issuesLicences?: boolean | undefined;
  /** Instances each licence key may be activated on; null or absent: no limit (docs/decisions.md §40). */
  activationLimit?: number | null | undefined;
  /** As the API takes them: [{currency, value}] with net prices; USD mandatory. */
  prices: unknown;
  /** Sold per seat: {minQuantity, maxQuantity, tiers}; null or absent: one per purchase (docs/decisions.md §39). */
  seats?: unknown;
}

/** What an update may change; a field left out keeps its value. The type never changes. */
export type ProductChanges = Partial<Omit<NewProduct, 'type'>>;

export const PRODUCT_NAME_MAX = 200;
export const PRODUCT_DESCRIPTION_MAX = 5000;

/** A product's name, trimmed: required, at most 200 characters. */
function productName(input: unknown): string {
  const name = typeof input === 'string' ? input.trim() : '';
  if (!name) throw invalidInput('A product needs a name.');
  if (name.length > PRODUCT_NAME_MAX) throw invalidInput(`A product name has at most ${PRODUCT_NAME_MAX} characters.`);
  return name;
}

/** A description, trimmed; empty is none. */
function productDescription(input: unknown): string {
  if (typeof input !== 'string') throw invalidInput('description must be text.');
  const description = input.trim();
  if (description.length > PRODUCT_DESCRIPTION_MAX)
    throw invalidInput(`A product description has at most ${PRODUCT_DESCRIPTION_MAX} characters.`);
  return description;
}

/**
 * A subscription's period (MONTHLY when none is given); any other type has UNKNOWN, and naming a
 * period for it is refused rather than silently dropped.
 */
function frequencyOf(type: TransactionType, input: string | undefined): ChargeFrequency {
  const given = typeof input === 'string' ? input.toUpperCase() : undefined;
  if (type !== 'SUBSCRIPTION') {
    if (given !== undefined && given !== 'UNKNOWN')
      throw invalidInput(`Only subscriptions have a chargeFrequency; a ${type} product has none.`);
    return 'UNKNOWN';
  }
  const frequency = (given ?? 'MONTHLY') as ChargeFrequency;
  if (!RECURRING_FREQUENCIES.includes(frequency))
    throw invalidInput('chargeFrequency must be DAILY, WEEKLY, MONTHLY, HALF_YEARLY or YEARLY.');
  return frequency;
}

/** A trial is a whole number of days up to a year, and only a subscription has one. */
function checkTrial(trialDays: number, type: TransactionType): void {
  if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > 365)
    throw invalidInput('trialDays must be a whole number from 0 to 365.');
  if (trialDays > 0 && type !== 'SUBSCRIPTION') throw invalidInput('Only subscriptions can have a trial.');
}

function licencesFlag(input: unknown): boolean {
  if (typeof input !== 'boolean') throw invalidInput('issuesLicences must be true or false.');
  return input;
}

export async function createProduct(deps: CatalogDeps, scope: Scope, input: NewProduct): Promise<Product> {
  const name = productName(input.name);
  const type = (typeof input.type === 'string' ? input.type.toUpperCase() : '') as TransactionType;
  if (!TRANSACTION_TYPES.includes(type)) throw invalidInput('type must be ONETIME, SUBSCRIPTION or VAULTED.');
  const chargeFrequency = frequencyOf(type, input.chargeFrequency);
  const trialDays = input.trialDays ?? 0;
  checkTrial(trialDays, type);
  const prices = parsePriceList(input.prices);
  const product: Product = {
    id: newId('product'),
    vendorId: scope.vendorId,
    environment: scope.environment,
    name,
    description: input.description === undefined ? '' : productDescription(input.description),
    type,
    chargeFrequency,
    trialDays,
    issuesLicences: input.issuesLicences === undefined ? false : licencesFlag(input.issuesLicences),
    prices,
    seats: input.seats === undefined ? null : parseSeatPricing(input.seats, prices),
    createdAt: deps.clock.now().toISOString(),
    archivedAt: null,
    activationLimit: input.activationLimit === undefined ? null : activationLimitField(input.activationLimit),
  };
  // The product and its prices are written together, or neither is.
  await deps.store.transaction((repos) => repos.products.insert(product));
  return product;
}

/** One product of the scope, archived or not; another vendor's or environment's is not found. */
export async function readProduct(deps: CatalogDeps, scope: Scope, id: string): Promise<Product> {
  const product = await deps.store.products.find(scope, id);
  if (!product) throw notFound(`Product ${id}`);
  return product;
}

/**
 * New name, description, prices, trial, licences or period for a product; what is left out stays.
 * Past transactions keep the price, name and period they were sold with; subscriptions sold on it
 * renew on their own schedule at the new price (the renewal re-prices). Its period may change only
 * while nothing was sold on it: a subscriber's renewal would otherwise charge the new period's price
 * on the old period (docs/decisions.md §28).
 */
export async function updateProduct(
  deps: CatalogDeps,
  scope: Scope,
  id: string,
  input: ProductChanges,
): Promise<Product> {
  return deps.store.transaction(async (repos) => {
    const current = await repos.products.find(scope, id);
    if (!current) throw notFound(`Product ${id}`);
    const trialDays = input.trialDays ?? current.trialDays;
    checkTrial(trialDays, current.type);
    const chargeFrequency =
      input.chargeFrequency === undefined ? current.chargeFrequency : frequencyOf(current.type, input.chargeFrequency);
    if (chargeFrequency !== current.chargeFrequency && (await repos.products.hasSales(scope, id))) {
      throw invalidState(
        `Product ${id} has sales, so its chargeFrequency stays ${current.chargeFrequency}: create a new product for the new period (its subscribers renew as they signed up).`,
      );
    }
    const fields = {
      name: input.name === undefined ? current.name : productName(input.name),
      description: input.description === undefined ? current.description : productDescription(input.description),
      chargeFrequency,
      trialDays,
      issuesLicences: input.issuesLicences === undefined ? current.issuesLicences : licencesFlag(input.issuesLicences),
      prices: input.prices === undefined ? current.prices : parsePriceList(input.prices),
    };
    await repos.products.update(scope, id, fields);
    const activationLimit =
      input.activationLimit === undefined ? current.activationLimit : activationLimitField(input.activationLimit);
    if (activationLimit !== current.activationLimit)
      await repos.products.setActivationLimit(scope, id, activationLimit);
    const seats = await updatedSeats(repos, scope, current, input.seats, fields.prices);
    return { ...current, ...fields, activationLimit, seats };
  });
}

/**
 * Archives a product (`archived`), or puts it on sale again. Never a deletion: its transactions,
 * renewals, licences and management pages go on; only new sales stop. Doing it twice changes nothing.
 */
export async function setProductArchived(
  deps: CatalogDeps,
  scope: Scope,
  id: string,
  archived: boolean,
): Promise<Product> {
  return deps.store.transaction(async (repos) => {
    const current = await repos.products.find(scope, id);
    if (!current) throw notFound(`Product ${id}`);
    if ((current.archivedAt !== null) === archived) return current;
    const archivedAt = archived ? deps.clock.now().toISOString() : null;
    await repos.products.setArchived(scope, id, archivedAt);
    return { ...current, archivedAt };
  });
}

/** Refuses a new sale of an archived product (its checkout, its price, a purchase, a customized link to it). */
export function requireOnSale(product: Pick<Product, 'archivedAt'>): void {
  if (product.archivedAt === null) return;
  throw new SaleRefused(
    'ARCHIVED',
    'This product is no longer sold',
    'The seller no longer sells this product. Nothing has been charged; purchases made before are not affected.',
  );
}
