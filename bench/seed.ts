import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/domain/ids.ts';
import { createServices } from '../src/services.ts';
import { openSqlite } from '../src/store/database.ts';

/**
 * A SQLite store holding `rows` transactions of one sandbox vendor, each with its payment ledger
 * entry. The first transaction is a real purchase through the services; the rest are copies of its
 * rows with fresh, time-ordered IDs, bulk-inserted with prepared statements. The file is cached in
 * the temporary directory under a version key, so a rerun starts at once.
 */
export const SEED_VERSION = 'v2';
/** The server secret the bench runs with: API passwords are stored as HMACs under it. */
export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

export interface SeededStore {
  file: string;
  rows: number;
  authorization: string;
  vendorId: string;
  /** ~1000 transaction IDs spread over the whole table, the ones the load generator asks for. */
  sampleIds: string[];
  seedSeconds: number;
  /** False when the file came from the cache of an earlier run. */
  fresh: boolean;
}

const SAMPLE_SIZE = 1000;
const BATCH = 50_000;

export async function seededStore(rows: number, options: { force?: boolean; log?: (line: string) => void } = {}): Promise<SeededStore> {
  const log = options.log ?? (() => {});
  const file = join(tmpdir(), `opentill-bench-${SEED_VERSION}-${rows}.db`);
  const meta = `${file}.json`;
  if (!options.force && existsSync(file) && existsSync(meta)) {
    const cached = JSON.parse(readFileSync(meta, 'utf8')) as Omit<SeededStore, 'fresh'>;
    if (cached.rows === rows && cached.file === file) {
      log(`using the cached store ${file} (seeded earlier in ${cached.seedSeconds.toFixed(1)} s; BENCH_FRESH=1 reseeds)`);
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
  const vendor = await services.catalog.createVendor({ name: 'Bench Software Ltd', email: 'owner@bench.opentill.test' });
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
  const txTemplate = db.prepare('SELECT * FROM transactions WHERE id = ?').get(bought.transaction.id) as Record<string, unknown>;
  const entryTemplate = db.prepare('SELECT * FROM ledger_entries WHERE transaction_id = ?').get(bought.transaction.id) as Record<string, unknown>;
  if (!txTemplate || !entryTemplate) throw new Error('the template purchase left no transaction or ledger entry');
  const txColumns = Object.keys(txTemplate);
  const entryColumns = Object.keys(entryTemplate);
  const insertTx = db.prepare(`INSERT INTO transactions (${txColumns.join(', ')}) VALUES (${txColumns.map((c) => '@' + c).join(', ')})`);
  const insertEntry = db.prepare(`INSERT INTO ledger_entries (${entryColumns.join(', ')}) VALUES (${entryColumns.map((c) => '@' + c).join(', ')})`);

  // Copies are one minute apart, ending before the template purchase: IDs and timestamps ascend.
  const copies = rows - 1;
  const step = 60_000;
  const firstMs = Date.now() - (copies + 1) * step;
  const sampleEvery = Math.max(1, Math.floor(rows / SAMPLE_SIZE));
  const sampleIds: string[] = [];
  const tx = { ...txTemplate };
  const entry = { ...entryTemplate };
  const insertBatch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ms = firstMs + i * step;
      const at = new Date(ms).toISOString();
      const id = newId('transaction', ms);
      tx.id = id;
      tx.created_at = at;
      entry.id = newId('entry', ms);
      entry.transaction_id = id;
      entry.created_at = at;
      entry.hash_id = newId('hash', ms);
      if (entry.external_id !== null) entry.external_id = `sbx_bench_${i}`;
      // Invoice numbers are unique per vendor and environment; the template purchase holds number 1.
      entry.invoice_number = i + 2;
      insertTx.run(tx);
      insertEntry.run(entry);
      if (i % sampleEvery === 0 && sampleIds.length < SAMPLE_SIZE) sampleIds.push(id);
    }
  });
  for (let from = 0; from < copies; from += BATCH) {
    insertBatch(from, Math.min(copies, from + BATCH));
    if ((from / BATCH) % 4 === 3) log(`  ${(from + BATCH).toLocaleString('en-US')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  if (sampleIds.length === 0) sampleIds.push(bought.transaction.id);
  db.prepare('UPDATE invoice_counters SET last_number = ? WHERE vendor_id = ? AND environment = ?').run(rows, vendor.id, 'sandbox');
  const count = (db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;
  if (count !== rows) throw new Error(`seeded ${count} transactions, expected ${rows}`);
  // No ANALYZE: opentill never runs it, so the planner sees what a production file has.
  db.pragma('journal_mode = WAL');
  db.close();

  const seeded: Omit<SeededStore, 'fresh'> = {
    file,
    rows,
    authorization: credential.authorization,
    vendorId: vendor.id,
    sampleIds,
    seedSeconds: (performance.now() - started) / 1000,
  };
  for (const f of [`${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  renameSync(work, file);
  writeFileSync(meta, JSON.stringify(seeded));
  log(`seeded in ${seeded.seedSeconds.toFixed(1)} s`);
  return { ...seeded, fresh: true };
}
