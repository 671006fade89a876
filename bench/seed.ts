import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/domain/ids.ts';
import { createServices } from '../src/services.ts';
import { openSqlite } from '../src/store/sqlite-database.ts';
import { migrationProvider } from '../src/store/migrations/index.ts';

/**
 * A SQLite store holding `rows` transactions of one sandbox vendor, each with its payment ledger
 * entry, as the API would have left them. The first transaction is a real purchase through the
 * services; the rest are copies of its rows with fresh, time-ordered IDs, bulk-inserted with prepared
 * statements:
 *  - customers of 20 transactions each (what GET /v1/transactions/{email} lists), their purchases
 *    spread over the whole table as repeat purchases are;
 *  - invoice numbers 1, 2, 3... in the order of the entries' creation, and the counter at the last;
 *  - `pending` transactions waiting in the changed-transactions feed, spread evenly; every other
 *    change already marked processed.
 * The file is cached in the temporary directory under a key of the seed's version and the schema's
 * migrations, so a rerun starts at once and a new migration reseeds.
 */
export const SEED_VERSION = 'v4';
/** The server secret the bench runs with: API passwords are stored as HMACs under it. */
export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
/** Transactions per customer: the by-email list's length. */
export const PER_CUSTOMER = 20;

export interface SeededStore {
  file: string;
  rows: number;
  pending: number;
  authorization: string;
  vendorId: string;
  productId: string;
  /** ~1000 transaction IDs spread over the whole table, the ones the load generator asks for. */
  sampleIds: string[];
  /** E-mails of up to 1000 customers with exactly PER_CUSTOMER transactions each. */
  sampleEmails: string[];
  seedSeconds: number;
  /** False when the file came from the cache of an earlier run. */
  fresh: boolean;
}

const SAMPLE_SIZE = 1000;
const BATCH = 50_000;

async function schemaKey(): Promise<string> {
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  return createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 8);
}

/**
 * `file`: where to seed instead of the cache (a smoke run seeds into a directory of its own and
 * removes it); `force`: reseed even if the cache has the file.
 */
export async function seededStore(
  rows: number,
  pending: number,
  options: { file?: string | undefined; force?: boolean; log?: (line: string) => void } = {},
): Promise<SeededStore> {
  const log = options.log ?? (() => {});
  if (rows <= PER_CUSTOMER) throw new Error(`a store needs more than ${PER_CUSTOMER} transactions, not ${rows}`);
  if (pending > rows) throw new Error(`${pending} pending changes do not fit into ${rows} transactions`);
  const file =
    options.file ?? join(tmpdir(), `opentill-bench-${SEED_VERSION}-${await schemaKey()}-${rows}-${pending}.db`);
  const meta = `${file}.json`;
  if (!options.force && existsSync(file) && existsSync(meta)) {
    const cached = JSON.parse(readFileSync(meta, 'utf8')) as Omit<SeededStore, 'fresh'>;
    if (cached.rows === rows && cached.pending === pending && cached.file === file) {
      log(
        `using the cached store ${file} (seeded earlier in ${cached.seedSeconds.toFixed(1)} s; BENCH_FRESH=1 reseeds)`,
      );
      return { ...cached, fresh: false };
    }
  }

  const started = performance.now();
  const work = `${file}.seeding-${process.pid}`;
  for (const f of [work, `${work}-wal`, `${work}-shm`]) rmSync(f, { force: true });
  log(`seeding ${rows.toLocaleString('en-US')} transactions into ${file} ...`);

  // 1. Through the services: schema, vendor, sandbox credential, product, and one real purchase
  //    (which creates the customer, the transaction and its ledger entry): the template rows.
  const config = loadConfig({
    OPENTILL_SECRET: BENCH_SECRET,
    OPENTILL_DATA_DIR: join(tmpdir(), 'opentill-bench-data'),
    LOG_LEVEL: 'silent',
    SQLITE_FILE: work,
  });
  const database = openSqlite(work);
  const services = createServices(config, { database });
  await database.migrate();
  const vendor = await services.catalog.createVendor({
    name: 'Bench Software Ltd',
    email: 'owner@bench.opentill.test',
  });
  const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
  const credential = await services.credentials.issue(scope);
  const product = await services.catalog.createProduct(scope, {
    name: 'Bench App Pro (lifetime licence)',
    type: 'ONETIME',
    prices: [
      { currency: 'USD', value: 20 },
      { currency: 'EUR', value: 18.5 },
    ],
  });
  const bought = await services.purchases.purchase(scope, {
    productId: product.id,
    email: 'Anna.Schmidt@example.com',
    firstName: 'Anna',
    lastName: 'Schmidt',
    country: 'DE',
    card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 3 },
    payload: '{"seat":"bench"}',
  });
  if (bought.status !== 'PAID') throw new Error(`the template purchase was declined: ${bought.message}`);
  await services.close();

  // 2. Bulk copies with better-sqlite3 directly: no journal while seeding, WAL again at the end.
  const db = new SQLite(work);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -524288'); // 512 MiB
  db.pragma('temp_store = MEMORY');
  const template = (table: string, column: string, value: string) => {
    const found = db.prepare(`SELECT * FROM ${table} WHERE ${column} = ?`).get(value) as
      Record<string, unknown> | undefined;
    if (!found) throw new Error(`the template purchase left no row in ${table}`);
    return found;
  };
  const insertInto = (table: string, row: Record<string, unknown>) =>
    db.prepare(
      `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
        .map((c) => '@' + c)
        .join(', ')})`,
    );
  const tx = template('transactions', 'id', bought.transaction.id);
  const entry = template('ledger_entries', 'transaction_id', bought.transaction.id);
  entry.book_seq = null; // each copy is booked after the one before: SQLite numbers it (INTEGER PRIMARY KEY)
  const customer = template('customers', 'id', tx.customer_id as string);
  const insertTx = insertInto('transactions', tx);
  const insertEntry = insertInto('ledger_entries', entry);
  const insertCustomer = insertInto('customers', customer);

  // Copies are one minute apart, ending before the template purchase: IDs and timestamps ascend.
  // Copy i belongs to customer i % customers: each customer's purchases are spread over the years.
  // The few copies left over (fewer than PER_CUSTOMER) are the template customer's.
  const copies = rows - 1;
  const customers = Math.floor(copies / PER_CUSTOMER);
  const templateCustomer = {
    id: customer.id as string,
    email: customer.email as string,
    lower: customer.email_lower as string,
  };
  const step = 60_000;
  const firstMs = Date.now() - (copies + 1) * step;
  const emailOf = (k: number) => `buyer-${k}@bench.opentill.test`;
  const customerIds: string[] = [];
  db.transaction(() => {
    for (let k = 0; k < customers; k++) {
      const ms = firstMs + k * step;
      const email = emailOf(k);
      customerIds.push((customer.id = newId('customer', ms)));
      Object.assign(customer, {
        email,
        email_lower: email,
        first_name: 'Bench',
        last_name: `Buyer ${k}`,
        created_at: new Date(ms).toISOString(),
      });
      insertCustomer.run(customer);
    }
  })();
  // The template purchase is the newest: the last invoice number (the copies take 1, 2, 3...), and
  // its change already processed unless every transaction is to wait in the feed.
  db.prepare('UPDATE ledger_entries SET invoice_number = ? WHERE id = ?').run(rows, entry.id);
  db.prepare('UPDATE invoice_counters SET last_number = ? WHERE vendor_id = ? AND environment = ?').run(
    rows,
    vendor.id,
    'sandbox',
  );
  const templateInFeed = pending === rows ? 1 : 0;
  db.prepare('UPDATE transactions SET listed_version = ?, feed_pending = ? WHERE id = ?').run(
    1 - templateInFeed,
    templateInFeed,
    bought.transaction.id,
  );
  const pendingEvery = Math.max(1, Math.floor(copies / Math.max(1, pending)));
  const sampleEvery = Math.max(1, Math.floor(copies / SAMPLE_SIZE));
  const sampleIds: string[] = [];
  let pendingLeft = pending - templateInFeed;
  const insertBatch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ms = firstMs + i * step;
      const at = new Date(ms).toISOString();
      const id = newId('transaction', ms);
      const k = i % customers;
      const theirs = i < customers * PER_CUSTOMER;
      const inFeed = pendingLeft > 0 && i % pendingEvery === 0;
      if (inFeed) pendingLeft--;
      Object.assign(tx, {
        id,
        created_at: at,
        customer_id: theirs ? customerIds[k] : templateCustomer.id,
        email: theirs ? emailOf(k) : templateCustomer.email,
        email_lower: theirs ? emailOf(k) : templateCustomer.lower,
        changed_at: at,
        change_version: 1,
        listed_version: inFeed ? 0 : 1,
        feed_pending: inFeed ? 1 : 0,
      });
      Object.assign(entry, {
        id: newId('entry', ms),
        transaction_id: id,
        created_at: at,
        hash_id: newId('hash', ms),
        external_id: entry.external_id === null ? null : `sbx_bench_${i}`,
        invoice_number: i + 1,
      });
      insertTx.run(tx);
      insertEntry.run(entry);
      if (i % sampleEvery === 0 && sampleIds.length < SAMPLE_SIZE) sampleIds.push(id);
    }
  });
  for (let from = 0; from < copies; from += BATCH) {
    insertBatch(from, Math.min(copies, from + BATCH));
    if ((from / BATCH) % 4 === 3)
      log(`  ${(from + BATCH).toLocaleString('en-US')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const counted = db.prepare('SELECT count(*) AS n, sum(feed_pending) AS p FROM transactions').get() as {
    n: number;
    p: number;
  };
  if (counted.n !== rows || counted.p !== pending)
    throw new Error(`seeded ${counted.n} transactions, ${counted.p} in the feed; expected ${rows} and ${pending}`);
  // No ANALYZE: opentill never runs it, so the planner sees what a production file has.
  db.pragma('journal_mode = WAL');
  db.close();

  const emails = Math.min(SAMPLE_SIZE, customers);
  const sampleEmails = Array.from({ length: emails }, (_, n) => emailOf(Math.floor((n * customers) / emails)));
  const seeded: Omit<SeededStore, 'fresh'> = {
    file,
    rows,
    pending,
    authorization: credential.authorization,
    vendorId: vendor.id,
    productId: product.id,
    sampleIds,
    sampleEmails,
    seedSeconds: (performance.now() - started) / 1000,
  };
  for (const f of [`${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  renameSync(work, file);
  writeFileSync(meta, JSON.stringify(seeded));
  log(`seeded in ${seeded.seedSeconds.toFixed(1)} s`);
  return { ...seeded, fresh: true };
}
