import { invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { CustomizedProduct, Scope } from '../model.ts';
import { parsePriceList } from '../money/index.ts';
import { requireEmail, requirePayload } from '../validation.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { purchaseQuantity } from './seats.ts';

export interface CustomizeRequest {
  prices: unknown;
  description?: string | undefined;
  payload?: string | null | undefined;
  transactionIdToMigrate?: string | undefined;
  expiresIn?: number | undefined;
  userFirstName?: string | undefined;
  userLastName?: string | undefined;
  userMail?: string | undefined;
  /** Seats the link sells, fixed (docs/decisions.md §39): in the product's range; its prices are per seat. */
  quantity?: number | undefined;
}

export async function customizeProduct(deps: CatalogDeps, scope: Scope, productId: string, input: CustomizeRequest) {
  const product = await deps.store.products.find(scope, productId);
  if (!product) throw notFound(`Product ${productId}`);
  if (product.archivedAt !== null)
    throw invalidState(
      `Product ${productId} is archived: it is not sold, so it has no new payment links. Unarchive it first.`,
    );
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
    createdAt: deps.clock.now().toISOString(),
    quantity: input.quantity === undefined ? null : purchaseQuantity(product, input.quantity),
  };
  await deps.store.customizedProducts.insert(customized);
  return { customized, link: paymentLink(deps.hostedUrl(scope.environment), customized.id) };
}

export function paymentLink(hostedUrl: string, productId: string): string {
  return `${hostedUrl}/payment/product/${encodeURIComponent(productId)}`;
}
