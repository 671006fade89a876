import { emailSettings, type EmailSettingsInput } from '../notifications/index.ts';
import type { Clock } from '../clock.ts';
import { AppError, invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type {
  ChargeFrequency,
  CustomizedProduct,
  Environment,
  Product,
  Scope,
  TransactionType,
  Vendor,
} from '../model.ts';
import { RECURRING_FREQUENCIES, TRANSACTION_TYPES } from '../model.ts';
import type { Repositories, Store } from '../ports.ts';
import { sellerSettings, type SellerDetailsInput } from './seller-details.ts';
import { productionNotEnabled, reaches } from '../production-access.ts';
import { parsePriceList } from '../money/index.ts';
import { requireEmail, requireOrigin, requirePayload } from '../validation.ts';

/** Vendors, products and customized products: what can be sold, and by whom. */
export interface CatalogDeps {
  store: Pick<Repositories, 'vendors' | 'products' | 'customizedProducts' | 'transactions'> &
    Pick<Store, 'transaction'>;
  clock: Clock;
  /** `{hosted_url}` of an environment: where payment links point. */
  hostedUrl: (environment: Scope['environment']) => string;
}

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

export interface CustomizeRequest {
  prices: unknown;
  description?: string | undefined;
  payload?: string | null | undefined;
  transactionIdToMigrate?: string | undefined;
  expiresIn?: number | undefined;
  userFirstName?: string | undefined;
  userLastName?: string | undefined;
  userMail?: string | undefined;
}

/**
 * What makes a vendor: a name and an e-mail. `productionEnabled` is false only for a vendor that signs up
 * in an open panel (docs/decisions.md §19); the operator's vendors (CLI, demo, invitations) reach production.
 */
export interface NewVendor {
  name: string;
  email: string;
  productionEnabled?: boolean;
}

export function catalogService(deps: CatalogDeps) {
  const now = () => deps.clock.now().toISOString();

  /** A new vendor, checked, not stored yet. */
  function newVendor(input: NewVendor): Vendor {
    const name = input.name?.trim();
    if (!name) throw invalidInput('A vendor needs a name.');
    return {
      id: newId('vendor'),
      name,
      email: requireEmail(input.email),
      createdAt: now(),
      productionEnabled: input.productionEnabled ?? true,
      allowConversion: true,
      adminFrameOrigins: [],
      sellerName: null,
      address: null,
      country: null,
      taxId: null,
      supportEmail: null,
      logo: null,
      emails: { senderName: null, replyTo: null, off: [] },
    };
  }

  return {
    newVendor,

    async createVendor(input: NewVendor): Promise<Vendor> {
      const vendor = newVendor(input);
      await deps.store.vendors.insert(vendor);
      return vendor;
    },

    findVendor: (id: string): Promise<Vendor | undefined> => deps.store.vendors.find(id),

    /** The vendor, or NOT_FOUND: what every command and page that names a vendor checks first. */
    async requireVendor(id: string): Promise<Vendor> {
      const vendor = await deps.store.vendors.find(id);
      if (!vendor) throw notFound(`Vendor ${id}`);
      return vendor;
    },

    /** The vendor of the scope, if it reaches the scope's environment; else FORBIDDEN, saying what to ask the operator. */
    async requireEnvironment(scope: Scope): Promise<Vendor> {
      const vendor = await deps.store.vendors.find(scope.vendorId);
      if (!vendor) throw notFound(`Vendor ${scope.vendorId}`);
      if (!reaches(vendor, scope.environment)) throw productionNotEnabled(vendor.id);
      return vendor;
    },

    /** The operator lets a vendor reach production (`opentill vendor enable-production`); `changed` is false when it already did. */
    async enableProduction(vendorId: string): Promise<{ vendor: Vendor; changed: boolean }> {
      const vendor = await deps.store.vendors.find(vendorId);
      if (!vendor) throw notFound(`Vendor ${vendorId}`);
      if (vendor.productionEnabled) return { vendor, changed: false };
      await deps.store.vendors.updateSettings(vendorId, { productionEnabled: true });
      return { vendor: { ...vendor, productionEnabled: true }, changed: true };
    },

    listVendors: (): Promise<Vendor[]> => deps.store.vendors.list(),

    /**
     * The scope of a product or customized product id, for public pages that carry no credential. A
     * production product of a vendor that does not reach production is not for sale: not found.
     */
    async ownerOf(productId: string, environment: Environment): Promise<Scope> {
      const vendorId = await deps.store.products.ownerOf(productId, environment);
      const vendor = vendorId && environment === 'production' ? await deps.store.vendors.find(vendorId) : undefined;
      if (!vendorId || (vendor && !reaches(vendor, environment))) throw notFound(`Product ${productId}`);
      return { vendorId, environment };
    },

    /**
     * Changes the settings given (undefined leaves one as it is). The seller details are checked
     * (e-mail, country code, lengths, logo PNG/JPEG of at most 100 KB); '' or null clears one.
     */
    async updateVendorSettings(
      vendorId: string,
      settings: Partial<Pick<Vendor, 'allowConversion' | 'adminFrameOrigins'>> &
        SellerDetailsInput & { emails?: EmailSettingsInput },
    ): Promise<Vendor> {
      const origins = settings.adminFrameOrigins?.map(requireOrigin);
      const checked = {
        ...(settings.allowConversion !== undefined ? { allowConversion: settings.allowConversion } : {}),
        ...(origins ? { adminFrameOrigins: [...new Set(origins)] } : {}),
        ...sellerSettings(settings),
        ...(settings.emails ? { emails: emailSettings(settings.emails) } : {}),
      };
      if (Object.keys(checked).length > 0 && !(await deps.store.vendors.updateSettings(vendorId, checked)))
        throw notFound(`Vendor ${vendorId}`);
      const vendor = await deps.store.vendors.find(vendorId);
      if (!vendor) throw notFound(`Vendor ${vendorId}`);
      return vendor;
    },

    async createProduct(scope: Scope, input: NewProduct): Promise<Product> {
      const name = input.name?.trim();
      if (!name) throw invalidInput('A product needs a name.');
      if (name.length > 200) throw invalidInput('A product name has at most 200 characters.');
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
      if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > 365)
        throw invalidInput('trialDays must be a whole number from 0 to 365.');
      if (trialDays > 0 && type !== 'SUBSCRIPTION') throw invalidInput('Only subscriptions can have a trial.');
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
        createdAt: now(),
      };
      await deps.store.products.insert(product);
      return product;
    },

    listProducts: (scope: Scope) => deps.store.products.list(scope),

    /**
     * New name, description, prices, trial or licences for a product. Its type and frequency stay:
     * subscriptions sold on it renew on their schedule, at the new price (the renewal re-prices).
     */
    async updateProduct(
      scope: Scope,
      id: string,
      input: Omit<NewProduct, 'type' | 'chargeFrequency'>,
    ): Promise<Product> {
      const current = await deps.store.products.find(scope, id);
      if (!current) throw notFound(`Product ${id}`);
      const name = input.name?.trim();
      if (!name) throw invalidInput('A product needs a name.');
      if (name.length > 200) throw invalidInput('A product name has at most 200 characters.');
      const trialDays = input.trialDays ?? current.trialDays;
      if (!Number.isInteger(trialDays) || trialDays < 0 || trialDays > 365)
        throw invalidInput('trialDays must be a whole number from 0 to 365.');
      if (trialDays > 0 && current.type !== 'SUBSCRIPTION') throw invalidInput('Only subscriptions can have a trial.');
      const fields = {
        name,
        description: input.description?.trim() ?? current.description,
        trialDays,
        issuesLicences: input.issuesLicences ?? current.issuesLicences,
        prices: parsePriceList(input.prices),
      };
      await deps.store.transaction((repos) => repos.products.update(scope, id, fields));
      return { ...current, ...fields };
    },

    async customizeProduct(scope: Scope, productId: string, input: CustomizeRequest) {
      const product = await deps.store.products.find(scope, productId);
      if (!product) throw notFound(`Product ${productId}`);
      const prices = parsePriceList(input.prices);
      const payload = requirePayload(input.payload);
      const userMail =
        input.userMail === undefined || input.userMail === null ? null : requireEmail(input.userMail, 'userMail');
      let expiresAt: string | null = null;
      if (input.expiresIn !== undefined && input.expiresIn !== null) {
        // Under a second the link would be expired when the vendor receives it (1e-9 rounds to 0 ms).
        if (
          typeof input.expiresIn !== 'number' ||
          !Number.isFinite(input.expiresIn) ||
          input.expiresIn < 1 ||
          input.expiresIn > 10 * 365 * 86400
        ) {
          throw invalidInput(
            'expiresIn must be a number of seconds from 1 to 315360000 (ten years); a shorter one makes a link that has already expired.',
          );
        }
        expiresAt = new Date(deps.clock.now(scope).getTime() + Math.round(input.expiresIn * 1000)).toISOString();
      }
      let transactionIdToMigrate: string | null = null;
      if (input.transactionIdToMigrate) {
        if (product.type !== 'SUBSCRIPTION')
          throw invalidInput('Only a subscription product can replace a subscription (transactionIdToMigrate).');
        const old = await deps.store.transactions.find(scope, input.transactionIdToMigrate);
        if (!old) throw notFound(`Transaction ${input.transactionIdToMigrate}`);
        if (old.type !== 'SUBSCRIPTION' || old.status !== 'SUBSCRIPTION_STATUS_ACTIVE') {
          throw invalidState(
            `transactionIdToMigrate must be an active subscription; ${old.id} is ${old.type} with status ${old.status}.`,
          );
        }
        transactionIdToMigrate = old.id;
      }
      const customized: CustomizedProduct = {
        id: newId('customizedProduct'),
        vendorId: scope.vendorId,
        environment: scope.environment,
        productId: product.id,
        description: input.description ?? null,
        payload,
        transactionIdToMigrate,
        expiresAt,
        userFirstName: input.userFirstName ?? null,
        userLastName: input.userLastName ?? null,
        userMail,
        prices,
        createdAt: now(),
      };
      await deps.store.customizedProducts.insert(customized);
      return { customized, link: paymentLink(deps.hostedUrl(scope.environment), customized.id) };
    },

    /**
     * What a checkout sells for a product or customized-product id: the base product with the
     * customization's prices and overrides. An expired customized product is LINK_EXPIRED.
     */
    async resolveOffer(scope: Scope, id: string): Promise<Offer> {
      if (id.startsWith('PC_')) {
        const customized = await deps.store.customizedProducts.find(scope, id);
        if (!customized) throw notFound(`Product ${id}`);
        if (customized.expiresAt && customized.expiresAt <= deps.clock.now(scope).toISOString()) {
          throw new AppError('LINK_EXPIRED', 'This payment link has expired. Ask the seller for a new one.');
        }
        const product = await deps.store.products.find(scope, customized.productId);
        if (!product) throw notFound(`Product ${id}`);
        return {
          product: {
            ...product,
            prices: customized.prices,
            description: customized.description ?? product.description,
          },
          customized,
        };
      }
      const product = await deps.store.products.find(scope, id);
      if (!product) throw notFound(`Product ${id}`);
      return { product, customized: null };
    },
  };
}

export interface Offer {
  product: Product;
  customized: CustomizedProduct | null;
}

export function paymentLink(hostedUrl: string, productId: string): string {
  return `${hostedUrl}/payment/product/${encodeURIComponent(productId)}`;
}

export type CatalogService = ReturnType<typeof catalogService>;
