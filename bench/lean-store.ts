import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { newId, randomToken } from '../src/domain/ids.ts';
import { byCreatedThenId } from '../src/store/row-order.ts';
import type { Selectable } from 'kysely';
import type { ApiCredentialsTable, LedgerEntriesTable, TransactionsTable } from '../src/store/schema.ts';

/**
 * The lean reference's store: the statements opentill ends up issuing for each request (captured
 * from its PostgreSQL traffic), written out by hand and run as prepared statements: better-sqlite3's
 * on SQLite (with opentill's pragmas: WAL, synchronous=FULL), named pg statements on PostgreSQL.
 * A write commits where opentill commits, durably: update-payload in one database transaction; a
 * refund in three, as the money-safety protocol requires of anyone moving money (docs/decisions.md):
 * the attempt is committed before the payment network is asked, the network (the sandbox gateway,
 * standing in for a network round trip) records the refund on its own, and the outcome is booked in
 * a third. No query builder, no layers, no checks beyond the ones that keep the data right for the
 * next request.
 */
export type TransactionRow = Selectable<TransactionsTable>;
export type EntryRow = LedgerEntriesTable;
type CredentialRow = ApiCredentialsTable;

export interface LeanStore {
  credential(login: string): Promise<CredentialRow | undefined>;
  transaction(vendorId: string, id: string): Promise<TransactionRow | undefined>;
  entries(transactionId: string): Promise<EntryRow[]>;
  byEmail(vendorId: string, emailLower: string): Promise<TransactionRow[]>;
  /** The feed's page, recording the version each row had when listed (opentill's feed-store). */
  feed(vendorId: string, limit: number): Promise<TransactionRow[]>;
  updatePayload(vendorId: string, id: string, payload: string | null): Promise<TransactionRow | undefined>;
  /** The refund of the transaction's payment entry, as the sandbox gateway would settle it; undefined if nothing is left to refund. */
  refund(vendorId: string, id: string): Promise<EntryRow | undefined>;
  close(): Promise<void>;
}

const SANDBOX = 'sandbox';
const OPEN = ['PENDING', 'UNKNOWN'];
const TX_COLUMNS = `vendor_id = ? and environment = ? and id = ?`;

const SQL = {
  credential: 'select * from api_credentials where login = ?',
  transaction: `select * from transactions where ${TX_COLUMNS}`,
  // Ordered in code, as opentill does (src/store/row-order.ts).
  entries: 'select * from ledger_entries where transaction_id = ?',
  byEmail: `select * from transactions where vendor_id = ? and environment = ? and email_lower = ? union all select * from transactions where vendor_id = ? and environment = ? and assigned_email_lower = ? and email_lower <> ?`,
  feed: 'select * from transactions where vendor_id = ? and environment = ? and feed_pending = ? order by changed_at, id limit ?',
  markListed: 'update transactions set listed_version = ? where id = ? and change_version = ?',
  updatePayload: 'update transactions set payload = ? where id = ? and vendor_id = ? and environment = ?',
  openRefund: 'select * from charge_attempts where transaction_id = ? and kind = ? and status in (?, ?)',
  recordAttempt:
    'insert into charge_attempts (id, vendor_id, environment, attempt_key, transaction_id, amount_minor, currency, status, gateway_reference, failure_code, created_at, updated_at, kind, plan) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (attempt_key) do nothing returning *',
  gatewayRefund:
    'insert into sandbox_gateway_refunds (refund_id, charge_reference, amount_minor, currency, outcome, reference, created_at) values (?, ?, ?, ?, ?, ?, ?) on conflict (refund_id) do nothing',
  gatewayAnswer: 'select * from sandbox_gateway_refunds where refund_id = ?',
  settleAttempt:
    'update charge_attempts set status = ?, gateway_reference = ?, failure_code = ?, updated_at = ? where id = ? and status in (?, ?)',
  invoiceNumber:
    'insert into invoice_counters (vendor_id, environment, last_number) values (?, ?, ?) on conflict (vendor_id, environment) do update set last_number = invoice_counters.last_number + ? returning last_number',
  insertEntry:
    'insert into ledger_entries (id, transaction_id, vendor_id, environment, type, created_at, currency, amount_total_minor, tax_minor, net_minor, tax_rate, income_minor, income_currency, affiliate_income_minor, service_fee_minor, transaction_fee_minor, reverses_entry_id, period_start, hash_id, external_id, payment_provider, country, description, invoice_number) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  markRefunded: `update transactions set status = ?, next_charge = ?, change_flag = ?, changed_at = ?, feed_pending = ?, change_version = change_version + 1 where id = ? and vendor_id = ? and environment = ?`,
  attemptByKey: 'select * from charge_attempts where attempt_key = ?',
} as const;

type Name = keyof typeof SQL;

/** What a refund writes, computed from the rows read under the lock. */
function refundPlan(vendorId: string, tx: TransactionRow, payment: EntryRow) {
  const now = new Date();
  const at = now.toISOString();
  const attemptId = newId('chargeAttempt');
  const refund: EntryRow = {
    ...payment,
    id: newId('entry', now.getTime()),
    type: 'ONETIME_PAYMENT_REFUND',
    created_at: at,
    amount_total_minor: -payment.amount_total_minor,
    tax_minor: -payment.tax_minor,
    net_minor: -payment.net_minor,
    income_minor: -payment.income_minor,
    affiliate_income_minor: -payment.affiliate_income_minor,
    service_fee_minor: -payment.service_fee_minor,
    transaction_fee_minor: -payment.transaction_fee_minor,
    reverses_entry_id: payment.id,
    period_start: null,
    hash_id: newId('hash', now.getTime()),
    external_id: null,
    description: null,
    invoice_number: null,
  };
  const key = `refund:${vendorId}:${SANDBOX}:${tx.id}:${randomToken(16)}`;
  const plan = JSON.stringify({ transaction: tx, refund, chargeReference: payment.external_id });
  const reference = `sbx_re_${randomBytes(10).toString('hex')}`;
  return {
    at,
    key,
    refund,
    attempt: [
      attemptId,
      vendorId,
      SANDBOX,
      key,
      tx.id,
      payment.amount_total_minor,
      payment.currency,
      'PENDING',
      null,
      null,
      at,
      at,
      'REFUND',
      plan,
    ],
    gateway: [attemptId, payment.external_id, payment.amount_total_minor, payment.currency, 'success', reference, at],
    settle: ['SUCCEEDED', reference, null, at, attemptId, ...OPEN],
    entry: (invoiceNumber: number) => {
      refund.external_id = reference;
      refund.invoice_number = invoiceNumber;
      const e = refund;
      // prettier-ignore
      return [
        e.id, e.transaction_id, vendorId, SANDBOX, e.type, e.created_at, e.currency, e.amount_total_minor, e.tax_minor, e.net_minor, e.tax_rate, e.income_minor,
        e.income_currency, e.affiliate_income_minor, e.service_fee_minor, e.transaction_fee_minor, e.reverses_entry_id, e.period_start, e.hash_id,
        e.external_id, e.payment_provider, e.country, e.description, e.invoice_number,
      ];
    },
    markRefunded: ['TRANSACTION_STATUS_REFUNDED', null, 'CHANGED_STATUS_REFUNDED', at, 1, tx.id, vendorId, SANDBOX],
  };
}

const isPayment = (e: EntryRow) =>
  e.type === 'ONETIME_PAYMENT' || e.type === 'SUBSCRIPTION_PAYMENT' || e.type === 'VAULTED_PAYMENT';
const unreversedPayment = (entries: EntryRow[]) => {
  const reversed = new Set(entries.map((e) => e.reverses_entry_id));
  for (let i = entries.length - 1; i >= 0; i--)
    if (isPayment(entries[i]!) && !reversed.has(entries[i]!.id)) return entries[i];
  return undefined;
};

/** Rows listed now whose version the feed must record (opentill skips the ones already recorded). */
const unlisted = (rows: TransactionRow[]) => rows.filter((r) => r.listed_version !== r.change_version);

export function sqliteLeanStore(file: string): LeanStore {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  const statements = Object.fromEntries(Object.entries(SQL).map(([name, text]) => [name, db.prepare(text)])) as Record<
    Name,
    SQLite.Statement
  >;
  const get = <T>(name: Name, ...params: unknown[]) => statements[name].get(...params) as T | undefined;
  const all = <T>(name: Name, ...params: unknown[]) => statements[name].all(...params) as T[];
  const run = (name: Name, ...params: unknown[]) => statements[name].run(...params);

  const record = db.transaction((vendorId: string, id: string) => {
    const tx = get<TransactionRow>('transaction', vendorId, SANDBOX, id);
    if (!tx || tx.status === 'TRANSACTION_STATUS_REFUNDED' || get('openRefund', id, 'REFUND', ...OPEN))
      return undefined;
    const payment = unreversedPayment(byCreatedThenId(all<EntryRow>('entries', id)));
    if (!payment) return undefined;
    const plan = refundPlan(vendorId, tx, payment);
    get('recordAttempt', ...plan.attempt);
    return plan;
  });
  const settle = db.transaction((vendorId: string, id: string, plan: ReturnType<typeof refundPlan>) => {
    run('settleAttempt', ...plan.settle);
    get('transaction', vendorId, SANDBOX, id);
    const { last_number } = get<{ last_number: number }>('invoiceNumber', vendorId, SANDBOX, 1, 1)!;
    run('insertEntry', ...plan.entry(last_number));
    run('markRefunded', ...plan.markRefunded);
  });
  const updatePayload = db.transaction((vendorId: string, id: string, payload: string | null) => {
    const tx = get<TransactionRow>('transaction', vendorId, SANDBOX, id);
    if (!tx) return undefined;
    run('updatePayload', payload, id, vendorId, SANDBOX);
    return { ...tx, payload };
  });

  return {
    credential: async (login) => get('credential', login),
    transaction: async (vendorId, id) => get('transaction', vendorId, SANDBOX, id),
    entries: async (transactionId) => byCreatedThenId(all('entries', transactionId)),
    byEmail: async (vendorId, lower) =>
      byCreatedThenId(all('byEmail', vendorId, SANDBOX, lower, vendorId, SANDBOX, lower, lower), 'desc'),
    async feed(vendorId, limit) {
      const rows = all<TransactionRow>('feed', vendorId, SANDBOX, 1, limit + 1);
      for (const r of unlisted(rows.slice(0, limit))) run('markListed', r.change_version, r.id, r.change_version);
      return rows;
    },
    updatePayload: async (vendorId, id, payload) => updatePayload.immediate(vendorId, id, payload),
    async refund(vendorId, id) {
      const plan = record.immediate(vendorId, id);
      if (!plan) return undefined;
      run('gatewayRefund', ...plan.gateway);
      get('gatewayAnswer', plan.gateway[0]);
      settle.immediate(vendorId, id, plan);
      get('attemptByKey', plan.key);
      return plan.refund;
    },
    close: async () => void db.close(),
  };
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...`. */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

export function postgresLeanStore(url: string): LeanStore {
  // opentill's pool: 10 connections, int8 read as numbers.
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  const query = (name: Name, lock = false) => ({
    name: lock ? `${name}_lock` : name,
    text: numbered(SQL[name]) + (lock ? ' for update' : ''),
  });
  type Client = pg.Pool | pg.PoolClient;
  const all = async <T extends pg.QueryResultRow>(on: Client, name: Name, params: unknown[], lock = false) =>
    (await on.query<T>({ ...query(name, lock), values: params })).rows;
  const get = async <T extends pg.QueryResultRow>(on: Client, name: Name, params: unknown[], lock = false) =>
    (await all<T>(on, name, params, lock))[0];

  async function inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    credential: (login) => get<CredentialRow>(pool, 'credential', [login]),
    transaction: (vendorId, id) => get<TransactionRow>(pool, 'transaction', [vendorId, SANDBOX, id]),
    entries: async (transactionId) => byCreatedThenId(await all<EntryRow>(pool, 'entries', [transactionId])),
    byEmail: async (vendorId, lower) =>
      byCreatedThenId(
        await all<TransactionRow>(pool, 'byEmail', [vendorId, SANDBOX, lower, vendorId, SANDBOX, lower, lower]),
        'desc',
      ),
    async feed(vendorId, limit) {
      const rows = await all<TransactionRow>(pool, 'feed', [vendorId, SANDBOX, 1, limit + 1]);
      for (const r of unlisted(rows.slice(0, limit)))
        await pool.query({ ...query('markListed'), values: [r.change_version, r.id, r.change_version] });
      return rows;
    },
    updatePayload: (vendorId, id, payload) =>
      inTransaction(async (client) => {
        const tx = await get<TransactionRow>(client, 'transaction', [vendorId, SANDBOX, id], true);
        if (!tx) return undefined;
        await client.query({ ...query('updatePayload'), values: [payload, id, vendorId, SANDBOX] });
        return { ...tx, payload };
      }),
    async refund(vendorId, id) {
      const plan = await inTransaction(async (client) => {
        const tx = await get<TransactionRow>(client, 'transaction', [vendorId, SANDBOX, id], true);
        if (
          !tx ||
          tx.status === 'TRANSACTION_STATUS_REFUNDED' ||
          (await get(client, 'openRefund', [id, 'REFUND', ...OPEN]))
        )
          return undefined;
        const payment = unreversedPayment(byCreatedThenId(await all<EntryRow>(client, 'entries', [id])));
        if (!payment) return undefined;
        const plan = refundPlan(vendorId, tx, payment);
        await get(client, 'recordAttempt', plan.attempt);
        return plan;
      });
      if (!plan) return undefined;
      await pool.query({ ...query('gatewayRefund'), values: plan.gateway });
      await get(pool, 'gatewayAnswer', [plan.gateway[0]]);
      await inTransaction(async (client) => {
        await client.query({ ...query('settleAttempt'), values: plan.settle });
        await get(client, 'transaction', [vendorId, SANDBOX, id], true);
        const { last_number } = (await get<{ last_number: number }>(client, 'invoiceNumber', [
          vendorId,
          SANDBOX,
          1,
          1,
        ]))!;
        await client.query({ ...query('insertEntry'), values: plan.entry(last_number) });
        await client.query({ ...query('markRefunded'), values: plan.markRefunded });
      });
      await get(pool, 'attemptByKey', [plan.key]);
      return plan.refund;
    },
    close: () => pool.end(),
  };
}
