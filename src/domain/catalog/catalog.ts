import type { Environment, Scope, Vendor } from '../model.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { customizeProduct, type CustomizeRequest } from './customized-products.ts';
import { ownerOf, resolveOffer } from './offers.ts';
import { requireOpenForSale, vendorStatus, vendorStatuses } from './open-for-sale.ts';
import {
  createProduct,
  readProduct,
  setProductArchived,
  updateProduct,
  type NewProduct,
  type ProductChanges,
} from './products.ts';
import { readProductImage, removeProductImage, setProductImage } from './product-images.ts';
import { updateVendorSettings, type VendorSettingsInput } from './vendor-settings.ts';
import { resumeVendor, suspendVendor, type SuspendRequest } from './vendor-suspension.ts';
import {
  createVendor,
  enableProduction,
  newVendor,
  platformFeeOf,
  requireEnvironment,
  requireVendor,
  setPlatformFee,
  type NewVendor,
} from './vendors.ts';

export type { CatalogDeps } from './catalog-deps.ts';
export type { CustomizeRequest } from './customized-products.ts';
export { paymentLink } from './customized-products.ts';
export type { Offer } from './offers.ts';
export type { NewProduct, ProductChanges } from './products.ts';
export { PRODUCT_IMAGE_MAX_BYTES, PRODUCT_IMAGE_MAX_SIDE, PRODUCT_IMAGE_TYPES, readPicture } from './product-images.ts';
export { PRODUCT_DESCRIPTION_MAX, PRODUCT_NAME_MAX, requireOnSale } from './products.ts';
export type { VendorStatus } from './open-for-sale.ts';
export { SUSPENSION_REASON_MAX, type SuspendRequest } from './vendor-suspension.ts';
export type { VendorSettingsInput } from './vendor-settings.ts';
export type { NewVendor } from './vendors.ts';

/** The catalog's use cases over one set of deps: vendors, their settings, products, customized products, offers. */
export function catalogService(deps: CatalogDeps) {
  return {
    newVendor: (input: NewVendor) => newVendor(deps, input),
    createVendor: (input: NewVendor) => createVendor(deps, input),
    findVendor: (id: string): Promise<Vendor | undefined> => deps.store.vendors.find(id),
    requireVendor: (id: string) => requireVendor(deps, id),
    requireEnvironment: (scope: Scope) => requireEnvironment(deps, scope),
    enableProduction: (vendorId: string) => enableProduction(deps, vendorId),
    setPlatformFee: (vendorId: string, fee: string | null) => setPlatformFee(deps, vendorId, fee),
    platformFeeOf: (vendor: Pick<Vendor, 'platformFee'>) => platformFeeOf(deps, vendor),
    listVendors: (): Promise<Vendor[]> => deps.store.vendors.list(),
    /** Every vendor with its production access, suspension, seller identity and fee (the operator's list). */
    vendorStatuses: () => vendorStatuses(deps),
    vendorStatus: (vendor: Vendor) => vendorStatus(deps, vendor),
    suspendVendor: (vendorId: string, request?: SuspendRequest) => suspendVendor(deps, vendorId, request),
    resumeVendor: (vendorId: string) => resumeVendor(deps, vendorId),
    /** The scope's vendor if its checkout may start a new purchase now; else why not (docs/decisions.md §24). */
    requireOpenForSale: (scope: Scope) => requireOpenForSale(deps, scope),
    ownerOf: (productId: string, environment: Environment) => ownerOf(deps, productId, environment),
    updateVendorSettings: (vendorId: string, settings: VendorSettingsInput) =>
      updateVendorSettings(deps, vendorId, settings),
    createProduct: (scope: Scope, input: NewProduct) => createProduct(deps, scope, input),
    /** Every product of the scope, archived ones included, oldest first. */
    listProducts: (scope: Scope) => deps.store.products.list(scope),
    /** One product of the scope, archived or not; NOT_FOUND for another vendor's or environment's. */
    readProduct: (scope: Scope, id: string) => readProduct(deps, scope, id),
    updateProduct: (scope: Scope, id: string, input: ProductChanges) => updateProduct(deps, scope, id, input),
    archiveProduct: (scope: Scope, id: string) => setProductArchived(deps, scope, id, true),
    unarchiveProduct: (scope: Scope, id: string) => setProductArchived(deps, scope, id, false),
    /** A product's image: PNG, JPEG or WebP by its bytes, 1 MB at most (docs/decisions.md §42). */
    setProductImage: (scope: Scope, id: string, bytes: Uint8Array) => setProductImage(deps, scope, id, bytes),
    removeProductImage: (scope: Scope, id: string) => removeProductImage(deps, scope, id),
    /** The public image of a product at this version; NOT_FOUND for another environment's or an old version. */
    readProductImage: (environment: Environment, id: string, version: string) =>
      readProductImage(deps, environment, id, version),
    customizeProduct: (scope: Scope, productId: string, input: CustomizeRequest) =>
      customizeProduct(deps, scope, productId, input),
    resolveOffer: (scope: Scope, id: string) => resolveOffer(deps, scope, id),
  };
}

export type CatalogService = ReturnType<typeof catalogService>;
