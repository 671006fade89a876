import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyRequest } from 'fastify';
import {
  changedTransaction,
  listedTransaction,
  refundRecord,
  transactionWithEntries,
  updatedTransaction,
} from '../src/http/presenters.ts';
import { toEntry } from '../src/store/ledger-store.ts';
import { toTransaction } from '../src/store/transaction-rows.ts';
import type { KeptAnswer } from './bare-server.ts';
import { postgresLeanStore, sqliteLeanStore } from './lean-store.ts';

/**
 * The lean reference: what the framework and the store allow for the same requests. A bare Fastify
 * server answering the sandbox API's reads and two writes with the statements opentill issues, run
 * as prepared statements (bench/lean-store.ts), and the same answers (opentill's own row mapping and
 * presenters, serialized by JSON.stringify). It checks the credential as opentill does (HMAC of the
 * password, skipped for the password the login last matched; the login's row cached for 5 s); no rate
 * limits, idempotency, schemas or domain layer.
 *
 * Started by the benches (bench/servers.ts) with LEAN_SQLITE_FILE or LEAN_DATABASE_URL and
 * OPENTILL_SECRET; prints "listening <port>" once it listens on 127.0.0.1.
 *
 * With LEAN_LOOKUPS_ONLY naming an answers file (bench/bare-server.ts's format), the read by id
 * checks the credential and runs its two lookups, then answers opentill's kept bytes instead of
 * building the answer: the floor of any Fastify server that reads this store for the request.
 */
const store = process.env.LEAN_DATABASE_URL
  ? postgresLeanStore(process.env.LEAN_DATABASE_URL)
  : sqliteLeanStore(process.env.LEAN_SQLITE_FILE!);
const secret = process.env.OPENTILL_SECRET!;
const credentials = new Map<
  string,
  { vendorId: string | undefined; hash: Buffer; until: number; verified: Buffer | null }
>();

async function vendorOf(request: FastifyRequest): Promise<string | undefined> {
  const header = request.headers.authorization ?? '';
  const colon = header.indexOf(':');
  if (colon <= 0) return undefined;
  const login = header.slice(0, colon);
  let known = credentials.get(login);
  if (!known || known.until < Date.now()) {
    const row = await store.credential(login);
    const usable = row && row.revoked_at === null && row.environment === 'sandbox';
    known = {
      vendorId: usable ? row.vendor_id : undefined,
      hash: Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex'),
      until: Date.now() + 5000,
      verified: null,
    };
    credentials.set(login, known);
  }
  // As opentill does: the password this login last matched skips the HMAC.
  const given = Buffer.from(header.slice(colon + 1));
  if (known.verified?.length === given.length && timingSafeEqual(known.verified, given)) return known.vendorId;
  const matches = timingSafeEqual(createHmac('sha256', secret).update(given).digest(), known.hash);
  if (matches) known.verified = given;
  return matches ? known.vendorId : undefined;
}

/** The kept answer of the read by id, when only the lookups are measured. */
const keptById = (() => {
  if (!process.env.LEAN_LOOKUPS_ONLY) return undefined;
  const answers = JSON.parse(readFileSync(process.env.LEAN_LOOKUPS_ONLY, 'utf8')) as KeptAnswer[];
  const byId = answers.find((a) => a.prefix === '/sandbox/v1/transaction/');
  if (!byId) throw new Error('LEAN_LOOKUPS_ONLY: no kept answer for the read by id');
  return {
    body: Buffer.from(byId.bodyBase64, 'base64'),
    contentType: byId.headers['content-type'] ?? 'application/json',
  };
})();

const app = Fastify({ logger: false });
const notFound = { error: 'NOT_FOUND', message: 'Not found.' };
type Id = { Params: { id: string } };

app.register(
  async (api) => {
    api.decorateRequest('vendorId', '');
    api.addHook('onRequest', async (request, reply) => {
      const vendorId = await vendorOf(request);
      if (!vendorId) return reply.code(401).send({ error: 'UNAUTHORIZED', message: 'Not a valid sandbox credential.' });
      (request as FastifyRequest & { vendorId: string }).vendorId = vendorId;
    });
    const vendor = (request: FastifyRequest) => (request as FastifyRequest & { vendorId: string }).vendorId;

    api.get<Id>('/transaction/:id', async (request, reply) => {
      const row = await store.transaction(vendor(request), request.params.id);
      if (!row) return reply.code(404).send(notFound);
      const entries = await store.entries(row.id);
      if (keptById) return reply.type(keptById.contentType).send(keptById.body);
      return transactionWithEntries(toTransaction(row), entries.map(toEntry));
    });
    api.get<{ Params: { email: string } }>('/transactions/:email', async (request) => {
      const rows = await store.byEmail(vendor(request), request.params.email.toLowerCase());
      return rows.map((r) => listedTransaction(toTransaction(r)));
    });
    api.get<{ Querystring: { limit?: string } }>('/changed-transactions', async (request, reply) => {
      const limit = request.query.limit === undefined ? 1000 : Number(request.query.limit);
      const rows = await store.feed(vendor(request), limit);
      reply.header('x-more-changes', String(rows.length > limit));
      return rows.slice(0, limit).map((r) => changedTransaction(toTransaction(r)));
    });
    api.post<Id & { Body: { payload?: string | null } }>('/transaction/:id', async (request, reply) => {
      const row = await store.updatePayload(vendor(request), request.params.id, request.body?.payload ?? null);
      return row ? updatedTransaction(toTransaction(row)) : reply.code(404).send(notFound);
    });
    api.post<Id>('/refund-transaction/:id', async (request, reply) => {
      const refund = await store.refund(vendor(request), request.params.id);
      if (!refund) return reply.code(409).send({ error: 'INVALID_STATE', message: 'Nothing to refund.' });
      const record = {
        ...toEntry(refund),
        vendorId: refund.vendor_id,
        environment: 'sandbox' as const,
        description: refund.description,
      };
      return [refundRecord(record, `http://127.0.0.1:${port}/sandbox`, false)];
    });
  },
  { prefix: '/sandbox/v1' },
);

const address = await app.listen({ host: '127.0.0.1', port: 0 });
const port = new URL(address).port;
process.stdout.write(`listening ${port}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => store.close().then(() => process.exit(0)));
});
