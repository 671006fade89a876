import type { Selectable } from 'kysely';
import type { CustomerEmailKind, Environment, Vendor } from '../domain/model.ts';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import type { ApiCredentialsTable, VendorsTable } from './schema.ts';
import { revokeOwned } from './revocation.ts';
import { whereScope } from './scope.ts';

/** Vendors, their API credentials, and their customers with stored payment methods. */
const toVendor = (row: Selectable<VendorsTable>): Vendor => ({
  id: row.id,
  name: row.name,
  email: row.email,
  createdAt: row.created_at,
  productionEnabled: Number(row.production_enabled) === 1,
  allowConversion: Number(row.allow_conversion) === 1,
  adminFrameOrigins: row.admin_frame_origins.split(' ').filter(Boolean),
  sellerName: row.seller_name ?? null,
  address: row.address ? row.address.split('\n') : null,
  country: row.country ?? null,
  taxId: row.tax_id ?? null,
  supportEmail: row.support_email ?? null,
  logo: row.logo ?? null,
  emails: {
    senderName: row.email_sender_name ?? null,
    replyTo: row.email_reply_to ?? null,
    off: (row.emails_off ?? '').split(' ').filter(Boolean) as CustomerEmailKind[],
  },
  platformFee: row.platform_fee ?? null,
  suspension: row.suspended_at
    ? {
        since: row.suspended_at,
        reason: row.suspension_reason ?? null,
        renewalsStopped: Number(row.renewals_stopped) === 1,
      }
    : null,
});

/** The seller-detail columns of the settings given (undefined: unchanged; null: cleared). */
const sellerColumns = (s: Partial<Vendor>) => ({
  ...(s.sellerName !== undefined ? { seller_name: s.sellerName } : {}),
  ...(s.address !== undefined ? { address: s.address && s.address.length ? s.address.join('\n') : null } : {}),
  ...(s.country !== undefined ? { country: s.country } : {}),
  ...(s.taxId !== undefined ? { tax_id: s.taxId } : {}),
  ...(s.supportEmail !== undefined ? { support_email: s.supportEmail } : {}),
  ...(s.logo !== undefined ? { logo: s.logo } : {}),
  ...(s.platformFee !== undefined ? { platform_fee: s.platformFee } : {}),
  ...(s.suspension !== undefined
    ? {
        suspended_at: s.suspension?.since ?? null,
        suspension_reason: s.suspension?.reason ?? null,
        renewals_stopped: s.suspension?.renewalsStopped ? 1 : 0,
      }
    : {}),
  ...(s.emails !== undefined
    ? { email_sender_name: s.emails.senderName, email_reply_to: s.emails.replyTo, emails_off: s.emails.off.join(' ') }
    : {}),
});

export function vendorsStore(db: Executor): Repositories['vendors'] {
  return {
    async insert(vendor) {
      await db
        .insertInto('vendors')
        .values({
          id: vendor.id,
          name: vendor.name,
          email: vendor.email,
          created_at: vendor.createdAt,
          production_enabled: vendor.productionEnabled ? 1 : 0,
          allow_conversion: vendor.allowConversion ? 1 : 0,
          admin_frame_origins: vendor.adminFrameOrigins.join(' '),
          ...sellerColumns(vendor),
        })
        .execute();
    },
    async find(id) {
      const row = await db.selectFrom('vendors').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toVendor(row);
    },
    async list() {
      const rows = await db.selectFrom('vendors').selectAll().orderBy('created_at').execute();
      return rows.map(toVendor);
    },
    async updateSettings(id, settings) {
      const result = await db
        .updateTable('vendors')
        .set({
          ...(settings.productionEnabled !== undefined
            ? { production_enabled: settings.productionEnabled ? 1 : 0 }
            : {}),
          ...(settings.allowConversion !== undefined ? { allow_conversion: settings.allowConversion ? 1 : 0 } : {}),
          ...(settings.adminFrameOrigins !== undefined
            ? { admin_frame_origins: settings.adminFrameOrigins.join(' ') }
            : {}),
          ...sellerColumns(settings),
        })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export function credentialsStore(db: Executor): Repositories['credentials'] {
  const toCredential = (row: ApiCredentialsTable) => ({
    id: row.id,
    vendorId: row.vendor_id,
    environment: row.environment as Environment,
    login: row.login,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  });
  return {
    async insert(c) {
      await db
        .insertInto('api_credentials')
        .values({
          id: c.id,
          vendor_id: c.vendorId,
          environment: c.environment,
          login: c.login,
          secret_hash: c.secretHash,
          created_at: c.createdAt,
          revoked_at: c.revokedAt,
        })
        .execute();
    },
    async findByLogin(login) {
      const row = await db.selectFrom('api_credentials').selectAll().where('login', '=', login).executeTakeFirst();
      return row && toCredential(row);
    },
    async listForVendor(vendorId) {
      const rows = await db
        .selectFrom('api_credentials')
        .selectAll()
        .where('vendor_id', '=', vendorId)
        .orderBy('created_at')
        .execute();
      return rows.map(toCredential);
    },
    revoke: (scope, id, at) => revokeOwned(db, 'api_credentials', scope, id, at),
  };
}

export function customersStore(db: Executor): Repositories['customers'] {
  return {
    async upsert(scope, customer) {
      const lower = customer.email.toLowerCase();
      await db
        .insertInto('customers')
        .values({
          id: customer.id,
          vendor_id: scope.vendorId,
          environment: scope.environment,
          email: customer.email,
          email_lower: lower,
          first_name: customer.firstName,
          last_name: customer.lastName,
          created_at: customer.createdAt,
        })
        .onConflict((oc) => oc.columns(['vendor_id', 'environment', 'email_lower']).doNothing())
        .execute();
      const row = await db
        .selectFrom('customers')
        .select('id')
        .$call(whereScope(scope))
        .where('email_lower', '=', lower)
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async find(scope, id) {
      const row = await db
        .selectFrom('customers')
        .select(['email', 'first_name', 'last_name'])
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      return row && { email: row.email, firstName: row.first_name, lastName: row.last_name };
    },
  };
}

export function paymentMethodsStore(db: Executor): Repositories['paymentMethods'] {
  return {
    async insert(scope, customerId, gateway, method, createdAt) {
      await db
        .insertInto('payment_methods')
        .values({
          id: method.id,
          vendor_id: scope.vendorId,
          environment: scope.environment,
          customer_id: customerId,
          gateway,
          token: method.token,
          brand: method.brand,
          last4: method.last4,
          exp_month: method.expMonth,
          exp_year: method.expYear,
          type: method.type ?? 'card',
          wallet: method.wallet ?? null,
          created_at: createdAt,
        })
        .execute();
    },
    async find(id) {
      const row = await db.selectFrom('payment_methods').selectAll().where('id', '=', id).executeTakeFirst();
      return (
        row && {
          id: row.id,
          token: row.token,
          brand: row.brand,
          last4: row.last4,
          expMonth: Number(row.exp_month),
          expYear: Number(row.exp_year),
          type: row.type,
          wallet: row.wallet,
        }
      );
    },
    async chargedWith(environment, token) {
      const rows = await db
        .selectFrom('payment_methods')
        .innerJoin('transactions', 'transactions.payment_method_id', 'payment_methods.id')
        .select(['transactions.id', 'transactions.vendor_id'])
        .where('payment_methods.environment', '=', environment)
        .where('payment_methods.token', '=', token)
        .where('transactions.status', 'in', [
          'SUBSCRIPTION_STATUS_ACTIVE',
          'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
          'VAULTED_STATUS_ACTIVE',
        ])
        .orderBy('transactions.id')
        .execute();
      return rows.map((r) => ({ scope: { vendorId: r.vendor_id, environment }, transactionId: r.id }));
    },
  };
}
