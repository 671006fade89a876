import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { periodStart } from '../src/domain/billing/billing-period.ts';
import { newId } from '../src/domain/ids.ts';
import type { Transaction } from '../src/domain/model.ts';
import type { Database } from '../src/store/database.ts';
import { toTransactionRow } from '../src/store/transaction-rows.ts';

/** The price every seeded subscription renews at: USD 9.99, no tax (US without a ZIP code). */
export const SEEDED_PRICE_MINOR = 999;

/**
 * `count` monthly sandbox subscriptions of one new vendor, each with its own customer and success
 * test card, whose second period (period 1) fell due ten days ago and whose third is weeks away:
 * a billing run owes each exactly one renewal. Rows are bulk-inserted, 500 per statement.
 */
export async function seedDueSubscriptions(
  database: Database,
  count: number,
  now = new Date(),
): Promise<{ vendorId: string; dueAt: string; nextAt: string }> {
  const db = database.kysely;
  const at = now.toISOString();
  const anchor = new Date(now.getTime() - 40 * 86_400_000);
  const dueAt = periodStart(anchor, 'MONTHLY', 1).toISOString();
  const nextAt = periodStart(anchor, 'MONTHLY', 2).toISOString();
  const vendorId = newId('vendor');
  const productId = newId('product');
  await db
    .insertInto('vendors')
    .values({ id: vendorId, name: 'Seeded', email: 'seeded@vendor.test', created_at: at })
    .execute();
  await db
    .insertInto('products')
    .values({
      id: productId,
      vendor_id: vendorId,
      environment: 'sandbox',
      name: 'Monthly',
      description: '',
      type: 'SUBSCRIPTION',
      charge_frequency: 'MONTHLY',
      trial_days: 0,
      issues_licences: 0,
      created_at: at,
    })
    .execute();
  await db
    .insertInto('product_prices')
    .values({ product_id: productId, currency: 'USD', amount_minor: SEEDED_PRICE_MINOR })
    .execute();

  for (let start = 0; start < count; start += 500) {
    const n = Math.min(500, count - start);
    const customers = [];
    const methods = [];
    const transactions = [];
    for (let i = 0; i < n; i++) {
      const email = `sub${start + i}@example.com`;
      const customerId = newId('customer');
      const methodId = newId('paymentMethod');
      customers.push({
        id: customerId,
        vendor_id: vendorId,
        environment: 'sandbox',
        email,
        email_lower: email,
        first_name: null,
        last_name: null,
        created_at: at,
      });
      methods.push({
        id: methodId,
        vendor_id: vendorId,
        environment: 'sandbox',
        customer_id: customerId,
        gateway: 'SANDBOX',
        token: `sbx_success_${randomBytes(12).toString('hex')}`,
        brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2099,
        created_at: at,
      });
      const transaction: Transaction = {
        id: newId('transaction'),
        vendorId,
        environment: 'sandbox',
        productId,
        customizedProductId: null,
        customerId,
        paymentMethodId: methodId,
        email,
        assignedEmail: null,
        businessName: null,
        buyerAddress: null,
        buyerVatId: null,
        postalCode: null,
        reverseCharge: false,
        locale: null,
        buyerName: null,
        cancelReason: null,
        quantity: 1,
        productName: 'Monthly',
        type: 'SUBSCRIPTION',
        status: 'SUBSCRIPTION_STATUS_ACTIVE',
        chargeFrequency: 'MONTHLY',
        country: 'US',
        region: null,
        currency: 'USD',
        netMinor: SEEDED_PRICE_MINOR,
        taxMinor: 0,
        netUsdMinor: SEEDED_PRICE_MINOR,
        taxRate: '0',
        taxName: '',
        payload: null,
        whoCanceled: null,
        lastCharge: anchor.toISOString(),
        nextCharge: dueAt,
        createdAt: anchor.toISOString(),
        changeFlag: null,
        changedAt: null,
        billing: { anchor: anchor.toISOString(), period: 1, failedAttempts: 0 },
      };
      transactions.push(toTransactionRow(transaction));
    }
    await db.insertInto('customers').values(customers).execute();
    await db.insertInto('payment_methods').values(methods).execute();
    await db.insertInto('transactions').values(transactions).execute();
  }
  if (database.dialect === 'postgres') await sql`analyze`.execute(db);
  return { vendorId, dueAt, nextAt };
}

/** What the ledger and the sandbox's payment network hold for the seeded vendor after billing. */
export async function billingTotals(database: Database, vendorId: string, dueAt: string) {
  const db = database.kysely;
  const one = async (query: ReturnType<typeof sql<{ n: number | string | null }>>) =>
    Number((await query.execute(db)).rows[0]?.n ?? 0);
  // The counts join tens of thousands of rows. A PostgreSQL test database kept from an earlier test (support/
  // postgres-reuse.ts) can carry statistics taken while its tables were empty (reltuples 0 over 36 pages,
  // with no autovacuum to renew them): the planner took the tables for empty and joined the charges and
  // attempts in a nested loop, and race.test's counts took about 14 of its 30 s (it needs 6 on a fresh one).
  if (database.dialect === 'postgres')
    await sql`analyze transactions, ledger_entries, charge_attempts, sandbox_gateway_charges`.execute(db);
  const subscriptions = await one(sql`select count(*) as n from transactions where vendor_id = ${vendorId}`);
  const paidOnce = await one(sql`select count(*) as n from (select transaction_id, count(*) as c from ledger_entries
    where vendor_id = ${vendorId} and period_start = ${dueAt} group by transaction_id) x where c = 1`);
  const chargedOnce =
    await one(sql`select count(*) as n from (select a.transaction_id, count(*) as c from sandbox_gateway_charges g
    join charge_attempts a on a.id = g.attempt_id where a.vendor_id = ${vendorId} group by a.transaction_id) x where c = 1`);
  return {
    subscriptions,
    paymentsForPeriod: await one(
      sql`select count(*) as n from ledger_entries where vendor_id = ${vendorId} and type = 'SUBSCRIPTION_PAYMENT' and period_start = ${dueAt}`,
    ),
    payments: await one(sql`select count(*) as n from ledger_entries where vendor_id = ${vendorId}`),
    /** Subscriptions with other than exactly one payment for the period. */
    notPaidOnce: subscriptions - paidOnce,
    ledgerTotalMinor: await one(
      sql`select coalesce(sum(amount_total_minor), 0) as n from ledger_entries where vendor_id = ${vendorId}`,
    ),
    /** Charges the payment network made for this vendor. */
    networkCharges: await one(
      sql`select count(*) as n from sandbox_gateway_charges g join charge_attempts a on a.id = g.attempt_id where a.vendor_id = ${vendorId}`,
    ),
    /** Subscriptions the payment network charged other than exactly once. */
    networkNotOnce: subscriptions - chargedOnce,
    stillDue: await one(
      sql`select count(*) as n from transactions where vendor_id = ${vendorId} and next_charge <= ${dueAt}`,
    ),
    unsettledAttempts: await one(
      sql`select count(*) as n from charge_attempts where vendor_id = ${vendorId} and status <> 'SUCCEEDED'`,
    ),
  };
}
