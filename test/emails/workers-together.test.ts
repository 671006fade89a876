import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';
import { freshDatabase, storeKinds } from '../../support/databases.ts';
import { startSmtpInbox } from '../helpers/smtp-inbox.ts';

/**
 * Several workers on one database (three processes' worth of connections) send the same outbox at
 * once: they claim as billing does (PostgreSQL skips rows another worker holds), so each e-mail goes
 * out exactly once and every row ends SENT.
 */
const CUSTOMERS = 60;

for (const kind of await storeKinds()) {
  test(`three workers sending one outbox at once send each e-mail once (${kind})`, { timeout: 60_000 }, async () => {
    const inbox = await startSmtpInbox();
    const store = await freshDatabase(kind);
    const config = loadConfig({
      OPENTILL_SECRET: 'workers-together-secret-0123456789-0123456789',
      OPENTILL_DATA_DIR: '/tmp/opentill-workers-together',
      LOG_LEVEL: 'silent',
      SMTP_URL: inbox.url,
      SMTP_FROM: 'receipts@opentill.test',
      SMTP_SANDBOX_TO: 'customers',
    });
    const open = () => (store.url ? openPostgres(store.url, 4) : openSqlite(store.file!));
    const workers = [createServices(config, { database: store.database, emails: { options: { batchSize: 5 } } })];
    for (let i = 0; i < 2; i++)
      workers.push(createServices(config, { database: open(), emails: { options: { batchSize: 5 } } }));
    try {
      const [first] = workers;
      const vendor = await first!.catalog.createVendor({ name: 'Busy Ltd', email: 'owner@busy.test' });
      const scope = { vendorId: vendor.id, environment: 'sandbox' as const };
      const product = await first!.catalog.createProduct(scope, {
        name: 'Thing',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 3 }],
      });
      const card = { number: '4242424242424242', expMonth: 12, expYear: 2035 };
      for (let i = 0; i < CUSTOMERS; i++)
        await first!.purchases.purchase(scope, {
          productId: product.id,
          email: `c${i}@example.com`,
          country: 'US',
          card,
        });
      const reports = await Promise.all(workers.map((w) => w.emails.runDue(Infinity)));
      assert.equal(
        reports.reduce((sum, r) => sum + r.sent, 0),
        CUSTOMERS,
      );
      if (kind === 'postgres')
        assert.ok(
          reports.filter((r) => r.sent > 0).length >= 2,
          `the work was shared: ${reports.map((r) => r.sent).join(', ')}`,
        );
      for (let i = 0; i < CUSTOMERS; i++) assert.equal(inbox.to(`c${i}@example.com`).length, 1, `c${i}`);
      assert.ok((await first!.emails.list(scope, 100)).every((e) => e.status === 'SENT'));
    } finally {
      for (const w of workers.slice(1)) await w.close();
      workers[0]!.emails.close();
      await store.drop();
      await inbox.close();
    }
  });
}
