import { sql, type Kysely } from 'kysely';

// Migrations receive Kysely<any>: they describe the schema as it was then, not as it is now.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('vendors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('login', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('charge_frequency', 'text', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('issues_licences', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_by_vendor').on('products').columns(['vendor_id', 'environment']).execute();

  await db.schema
    .createTable('product_prices')
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_prices_pk', ['product_id', 'currency'])
    .execute();

  await db.schema
    .createTable('customized_products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('description', 'text')
    .addColumn('payload', 'text')
    .addColumn('transaction_id_to_migrate', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('user_first_name', 'text')
    .addColumn('user_last_name', 'text')
    .addColumn('user_mail', 'text')
    .addColumn('prices_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('customers_email_unique', ['vendor_id', 'environment', 'email_lower'])
    .execute();

  await db.schema
    .createTable('payment_methods')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull().references('vendors.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('customized_product_id', 'text')
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('payment_method_id', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull())
    .addColumn('assigned_email', 'text')
    .addColumn('assigned_email_lower', 'text')
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('charge_frequency', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('net_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_minor', 'bigint', (c) => c.notNull())
    .addColumn('net_usd_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_rate', 'text', (c) => c.notNull())
    .addColumn('tax_name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('who_canceled', 'text')
    .addColumn('last_charge', 'text')
    .addColumn('next_charge', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('change_flag', 'text')
    .addColumn('changed_at', 'text')
    .addColumn('change_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listed_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('feed_pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('transactions_by_email')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'email_lower'])
    .execute();
  await db.schema
    .createIndex('transactions_by_assigned_email')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'assigned_email_lower'])
    .execute();
  // The feed reads only pending rows, oldest change first: a partial index keeps it small.
  await db.schema
    .createIndex('transactions_feed')
    .on('transactions')
    .columns(['vendor_id', 'environment', 'changed_at', 'id'])
    .where(sql.ref('feed_pending'), '=', 1)
    .execute();
  // The billing worker finds due subscriptions by this index, never by scanning.
  await db.schema
    .createIndex('transactions_due')
    .on('transactions')
    .columns(['next_charge', 'id'])
    .where(sql.ref('next_charge'), 'is not', null)
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_total_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_minor', 'bigint', (c) => c.notNull())
    .addColumn('net_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_rate', 'text', (c) => c.notNull())
    .addColumn('income_minor', 'bigint', (c) => c.notNull())
    .addColumn('income_currency', 'text', (c) => c.notNull())
    .addColumn('affiliate_income_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('service_fee_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transaction_fee_minor', 'bigint', (c) => c.notNull().defaultTo(0))
    // A payment is reversed at most once: the last line of defence against a double refund.
    .addColumn('reverses_entry_id', 'text', (c) => c.unique())
    .addColumn('period_start', 'text')
    .addColumn('hash_id', 'text', (c) => c.notNull().unique())
    .addColumn('external_id', 'text')
    .addColumn('payment_provider', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .execute();
  await db.schema
    .createIndex('ledger_by_transaction')
    .on('ledger_entries')
    .columns(['transaction_id', 'created_at'])
    .execute();
  // One subscription payment per period: a second charge for the same period cannot be stored.
  await db.schema
    .createIndex('ledger_one_payment_per_period')
    .on('ledger_entries')
    .columns(['transaction_id', 'period_start'])
    .unique()
    .where(sql.ref('period_start'), 'is not', null)
    .execute();

  await db.schema
    .createTable('licences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull().unique().references('transactions.id'))
    .addColumn('licence_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('licences_key_unique', ['product_id', 'licence_key'])
    .execute();

  await db.schema
    .createTable('charge_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('attempt_key', 'text', (c) => c.notNull().unique())
    .addColumn('transaction_id', 'text')
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway_reference', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('vendor_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['vendor_id', 'environment', 'idempotency_key'])
    .execute();

  await db.schema
    .createTable('sandbox_gateway_charges')
    .addColumn('attempt_id', 'text', (c) => c.primaryKey())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'sandbox_gateway_charges',
    'idempotency_keys',
    'charge_attempts',
    'licences',
    'ledger_entries',
    'transactions',
    'payment_methods',
    'customers',
    'customized_products',
    'product_prices',
    'products',
    'api_credentials',
    'vendors',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
