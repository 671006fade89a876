import type { ChargeFrequency, CustomizedProduct, Environment, Product, TransactionType } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import type { ProductsTable } from './schema.ts';
import { seatColumns, seatsOf } from './seat-columns.ts';
import { whereScope } from './scope.ts';
import { activationLimitWrites } from './licence-activations-store.ts';

type ProductRepository = Repositories['products'];

/** Each product's prices by currency. */
async function pricesOf(db: Executor, productIds: string[]): Promise<Map<string, Record<string, number>>> {
  const byProduct = new Map<string, Record<string, number>>();
  if (productIds.length === 0) return byProduct;
  const rows = await db.selectFrom('product_prices').selectAll().where('product_id', 'in', productIds).execute();
  for (const row of rows) {
    const prices = byProduct.get(row.product_id) ?? {};
    prices[row.currency] = Number(row.amount_minor);
    byProduct.set(row.product_id, prices);
  }
  return byProduct;
}

/** A product is written with its prices; an update replaces them. */
function productWrites(db: Executor): Pick<ProductRepository, 'insert' | 'update' | 'setArchived' | 'setSeats'> {
  return {
    async insert(product) {
      await db
        .insertInto('products')
        .values({
          id: product.id,
          vendor_id: product.vendorId,
          environment: product.environment,
          name: product.name,
          description: product.description,
          type: product.type,
          charge_frequency: product.chargeFrequency,
          trial_days: product.trialDays,
          issues_licences: product.issuesLicences ? 1 : 0,
          created_at: product.createdAt,
          archived_at: product.archivedAt,
          activation_limit: product.activationLimit,
          ...seatColumns(product.seats ?? null),
        })
        .execute();
      await db
        .insertInto('product_prices')
        .values(
          Object.entries(product.prices).map(([currency, amount]) => ({
            product_id: product.id,
            currency,
            amount_minor: amount,
          })),
        )
        .execute();
    },
    async update(scope, id, fields) {
      const result = await db
        .updateTable('products')
        .set({
          name: fields.name,
          description: fields.description,
          charge_frequency: fields.chargeFrequency,
          trial_days: fields.trialDays,
          issues_licences: fields.issuesLicences ? 1 : 0,
        })
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await db.deleteFrom('product_prices').where('product_id', '=', id).execute();
      await db
        .insertInto('product_prices')
        .values(
          Object.entries(fields.prices).map(([currency, amount]) => ({
            product_id: id,
            currency,
            amount_minor: amount,
          })),
        )
        .execute();
      return true;
    },
    async setSeats(scope, id, seats) {
      const result = await db
        .updateTable('products')
        .set(seatColumns(seats))
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async setArchived(scope, id, at) {
      const result = await db
        .updateTable('products')
        .set({ archived_at: at })
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** A product with its prices, a vendor's products, and which vendor owns a product id. */
function productReads(db: Executor): Pick<ProductRepository, 'find' | 'list' | 'ownerOf' | 'hasSales'> {
  return {
    async find(scope, id) {
      const row = await db
        .selectFrom('products')
        .selectAll()
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (!row) return undefined;
      const prices = await pricesOf(db, [row.id]);
      return toProduct(row, prices.get(row.id) ?? {});
    },
    async list(scope) {
      const rows = await db.selectFrom('products').selectAll().$call(whereScope(scope)).orderBy('created_at').execute();
      const prices = await pricesOf(
        db,
        rows.map((r) => r.id),
      );
      return rows.map((row) => toProduct(row, prices.get(row.id) ?? {}));
    },
    async ownerOf(id, environment) {
      const table = id.startsWith('PC_') ? 'customized_products' : 'products';
      const row = await db
        .selectFrom(table)
        .select('vendor_id')
        .where('id', '=', id)
        .where('environment', '=', environment)
        .executeTakeFirst();
      return row?.vendor_id;
    },
    async hasSales(scope, id) {
      const row = await db
        .selectFrom('transactions')
        .select('id')
        .where('product_id', '=', id)
        .$call(whereScope(scope))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** Products with their prices, and customized products. */
export function productsStore(db: Executor): ProductRepository {
  return { ...productWrites(db), ...productReads(db), ...activationLimitWrites(db) };
}

function toProduct(row: ProductsTable, prices: Record<string, number>): Product {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    environment: row.environment as Environment,
    name: row.name,
    description: row.description,
    type: row.type as TransactionType,
    chargeFrequency: row.charge_frequency as ChargeFrequency,
    trialDays: Number(row.trial_days),
    issuesLicences: Number(row.issues_licences) === 1,
    prices,
    createdAt: row.created_at,
    archivedAt: row.archived_at ?? null,
    activationLimit: row.activation_limit == null ? null : Number(row.activation_limit),
    imageVersion: row.image_version ?? null,
    seats: seatsOf(row),
  };
}

export function customizedProductsStore(db: Executor): Repositories['customizedProducts'] {
  return {
    async insert(p) {
      await db
        .insertInto('customized_products')
        .values({
          id: p.id,
          vendor_id: p.vendorId,
          environment: p.environment,
          product_id: p.productId,
          description: p.description,
          payload: p.payload,
          transaction_id_to_migrate: p.transactionIdToMigrate,
          expires_at: p.expiresAt,
          user_first_name: p.userFirstName,
          user_last_name: p.userLastName,
          user_mail: p.userMail,
          prices_json: JSON.stringify(p.prices),
          created_at: p.createdAt,
          quantity: p.quantity ?? null,
        })
        .execute();
    },
    async find(scope, id) {
      const row = await db
        .selectFrom('customized_products')
        .selectAll()
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (!row) return undefined;
      const product: CustomizedProduct = {
        id: row.id,
        vendorId: row.vendor_id,
        environment: row.environment as Environment,
        productId: row.product_id,
        description: row.description,
        payload: row.payload,
        transactionIdToMigrate: row.transaction_id_to_migrate,
        expiresAt: row.expires_at,
        userFirstName: row.user_first_name,
        userLastName: row.user_last_name,
        userMail: row.user_mail,
        prices: JSON.parse(row.prices_json) as Record<string, number>,
        createdAt: row.created_at,
        quantity: row.quantity == null ? null : Number(row.quantity),
      };
      return product;
    },
  };
}
