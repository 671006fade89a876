/**
 * `npm run bench:purchase`: purchases per second through the hosted checkout, on SQLite and on
 * PostgreSQL. Each request is what a browser sends when the customer presses Pay on
 * `/sandbox/payment/product/{id}`: the page's form (its one-time token, expected currency and
 * total) with a new token and a new customer's e-mail each time, country DE and the sandbox's success
 * card, form-encoded; opentill (`opentill serve`) charges it through the sandbox gateway and answers
 * the receipt page. Each 200 is one purchase: a customer, a transaction, a charge attempt and a ledger
 * entry with its invoice number, committed durably.
 *
 * The baseline, in the same run: a bare node:http server answering the same receipt bytes
 * (bench/bare-server.ts). Prints purchases/s, p50 and p99 latency and the ratio opentill / bare. The
 * store is a writable copy of the seeded SQLite file (bench/seed.ts) or a fresh PostgreSQL database
 * with the same rows.
 *
 * Environment:
 *   BENCH_ROWS=100000      transactions already in the store
 *   BENCH_SECONDS=10       measured seconds per server
 *   BENCH_WARMUP=3         warm-up seconds per server, not measured
 *   BENCH_CONNECTIONS=20   concurrent keep-alive connections (customers paying at once)
 *   BENCH_STORES=sqlite,postgres
 *   BENCH_SMOKE=1          tiny sizes, a few purchases (test/bench/bench-smoke.test.ts)
 */
import { join } from 'node:path';
import { hiddenFields, paidForm } from '../support/checkout-form.ts';
import type { Request } from 'autocannon';
import { measure, probe, row, writeAnswers, type LoadPlan } from './load.ts';
import type { SeededStore } from './seed.ts';
import { startBare, startOpentill, type Server } from './servers.ts';
import { count, log, logMachine, setting, SMOKE } from './settings.ts';
import { runWriteBench } from './stores.ts';

const ROWS = setting('BENCH_ROWS', 100_000, 2_001);
const SECONDS = setting('BENCH_SECONDS', 10);
const WARMUP = setting('BENCH_WARMUP', 3);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 20, 4);

let purchases = 0;
/** The form a customer sends, with a token and an e-mail no purchase has used. */
function paying(form: Record<string, string>): string {
  const n = ++purchases;
  return paidForm(form, {
    token: `bench-purchase-${process.pid}-${n}`.padEnd(16, '0'),
    email: `payer-${process.pid}-${n}@bench.opentill.test`,
    firstName: 'Bench',
    lastName: `Payer ${n}`,
  });
}

function plan(path: string, form: Record<string, string>): LoadPlan {
  const request = (): Request => ({ method: 'POST', path, body: paying(form) });
  return {
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    idlePath: `${path}?country=DE`,
    requests: () => [{ ...request(), setupRequest: (r) => ({ ...r, body: request().body }) }],
  };
}

async function measureStore(
  kind: string,
  location: Parameters<typeof startOpentill>[0],
  store: SeededStore,
  workDir: string,
): Promise<string[]> {
  const servers: Server[] = [];
  try {
    const opentill = await startOpentill(location);
    servers.push(opentill);
    const path = `/sandbox/payment/product/${store.productId}`;
    const page = (await probe(`${opentill.base}${path}?country=DE`)).body.toString();
    const form = hiddenFields(page);
    if (!form.expectedTotal || !form.expectedCurrency)
      throw new Error(`the checkout page has no expected total:\n${page.slice(0, 2000)}`);
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const receipt = await probe(opentill.base + path, { method: 'POST', headers, body: paying(form) });
    if (!/received/.test(receipt.body.toString()))
      throw new Error(`the purchase answered no receipt:\n${receipt.body.toString().slice(0, 2000)}`);
    log(
      `${kind}: a receipt is ${receipt.body.length} bytes; the form pays ${form.expectedTotal} ${form.expectedCurrency} (minor units)`,
    );
    const answersFile = join(workDir, `answers-${kind}.json`);
    writeAnswers(answersFile, [
      { prefix: path, answer: receipt, headers: ['content-security-policy', 'cache-control'] },
    ]);
    const bare = await startBare(answersFile);
    servers.push(bare);

    log(
      `${kind}: ${SMOKE ? 'a few purchases' : `warm-up ${WARMUP} s, then ${SECONDS} s`} with ${CONNECTIONS} connections per server ...`,
    );
    const b = await measure(bare, plan(path, form), servers);
    const o = await measure(opentill, plan(path, form), servers);
    return [row(`${kind} POST /payment/product/{id}`, b), row(`${kind} POST /payment/product/{id}`, o, { bare: b })];
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

logMachine(`opentill purchase bench: hosted checkout on ${count(ROWS)} transactions, ${CONNECTIONS} connections`);
await runWriteBench(
  'purchase',
  ROWS,
  `hosted checkout purchases (sandbox gateway, each 200 one purchase), ${CONNECTIONS} connections; req/s = purchases/s`,
  measureStore,
);
