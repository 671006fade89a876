/**
 * A child process for the SIGKILL test of money paths: it opens the test's database, performs the
 * given purchases, vaulted charges and refunds through the domain services one after another (each
 * under its client key, as a retrying client would send it), and says `done <n>` after each. Its
 * gateway pauses a few random milliseconds around every call, so a kill lands between any two steps.
 */
import { loadConfig } from '../../src/config.ts';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { createServices } from '../../src/services.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';

export type MoneyOp =
  | { op: 'checkout'; token: string; productId: string; email: string }
  | { op: 'vaulted'; id: string; key: string }
  | { op: 'refund'; id: string; key: string };

export interface ChildJob {
  url?: string;
  file?: string;
  vendorId: string;
  ops: MoneyOp[];
}

const job = JSON.parse(process.argv[2]!) as ChildJob;
const database = job.url ? openPostgres(job.url, 4) : openSqlite(job.file!);
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 6));
const real = sandboxGateway(database.kysely);
const slowed: PaymentGateway = {
  ...real,
  provider: real.provider,
  tokenize: (card, now) => real.tokenize(card, now),
  async charge(request) {
    await pause();
    const result = await real.charge(request);
    await pause();
    return result;
  },
  async refund(request) {
    await pause();
    const result = await real.refund(request);
    await pause();
    return result;
  },
};
const config = loadConfig({
  OPENTILL_SECRET: 'money-child-secret-0123456789-0123456789',
  OPENTILL_DATA_DIR: '/tmp/opentill-money-child',
  LOG_LEVEL: 'silent',
});
const services = createServices(config, { database, gateways: { sandbox: slowed } });
const scope = { vendorId: job.vendorId, environment: 'sandbox' as const };
const card = { number: '4242424242424242', expMonth: 12, expYear: 2035, cvc: '123' };

for (const [n, op] of job.ops.entries()) {
  if (op.op === 'checkout')
    await services.checkout.pay(scope, op.token, { productId: op.productId, email: op.email, country: 'US', card });
  else if (op.op === 'vaulted')
    await services.vaulted.charge(scope, op.id, { prices: [{ currency: 'USD', value: 7 }] }, op.key);
  else await services.refunds.refund(scope, op.id, { key: op.key });
  process.stdout.write(`done ${n}\n`);
}
await services.close();
