import { currentPlan } from '../domain/payments/index.ts';
import type { Environment } from '../domain/model.ts';
import type {
  AnyAttempt,
  AttemptKind,
  AttemptOf,
  ChargeAttempt,
  ChargeAttemptStatus,
  Repositories,
} from '../domain/ports.ts';
import type { DialectName, Executor, ReadRows } from './database.ts';
import { isUniqueViolation } from './database.ts';
import { precompiled, precompiledRow } from './precompiled.ts';
import { whereScope } from './scope.ts';
import type { Insertable, Selectable } from 'kysely';
import type { ChargeAttemptsTable } from './schema.ts';

type Attempt = ChargeAttempt;

export function toAttemptRow(a: AnyAttempt): Insertable<ChargeAttemptsTable> {
  return {
    id: a.id,
    vendor_id: a.scope.vendorId,
    environment: a.scope.environment,
    attempt_key: a.key,
    transaction_id: a.transactionId,
    amount_minor: a.amountMinor,
    currency: a.currency,
    status: a.status,
    gateway_reference: a.gatewayReference,
    failure_code: a.failureCode,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    kind: a.kind,
    // What the attempt books, as JSON: given back parsed, once, where the attempt is read.
    plan: a.plan === null ? null : JSON.stringify(a.plan),
  };
}

export function toAttempt(row: Selectable<ChargeAttemptsTable>): Attempt {
  // The row's kind says which plan it holds (src/domain/payments/attempt-plans.ts).
  return {
    id: row.id,
    scope: { vendorId: row.vendor_id, environment: row.environment as Environment },
    key: row.attempt_key,
    transactionId: row.transaction_id,
    amountMinor: Number(row.amount_minor),
    currency: row.currency,
    status: row.status as ChargeAttemptStatus,
    gatewayReference: row.gateway_reference,
    failureCode: row.failure_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    kind: row.kind as AttemptKind,
    plan: row.plan === null ? null : currentPlan(row.kind as AttemptKind, JSON.parse(row.plan)),
  } as Attempt;
}

export const ATTEMPT_COLUMNS = [
  'id',
  'vendor_id',
  'environment',
  'attempt_key',
  'transaction_id',
  'amount_minor',
  'currency',
  'status',
  'gateway_reference',
  'failure_code',
  'created_at',
  'updated_at',
  'kind',
  'plan',
] as const satisfies readonly (keyof ChargeAttemptsTable)[];

export const OPEN_STATUSES = ['PENDING', 'UNKNOWN'];

type AttemptRepository = Repositories['chargeAttempts'];

/**
 * The statements every purchase, charge and refund runs, compiled once (src/store/precompiled.ts);
 * `writes` runs them on a transaction's own connection where the store has one.
 */
function attemptStatements(db: Executor, dialect: DialectName, writes?: ReadRows) {
  const options = (name: string) => ({ runOn: writes, shareAs: `${dialect}:chargeAttempts.${name}` });
  const insert = precompiledRow(
    db,
    ATTEMPT_COLUMNS,
    (row: Insertable<ChargeAttemptsTable>) =>
      db
        .insertInto('charge_attempts')
        .values(row)
        .onConflict((oc) => oc.column('attempt_key').doNothing())
        .returningAll(),
    options('insert'),
  );
  const byKey = precompiled(
    db,
    1,
    (key: string) => db.selectFrom('charge_attempts').selectAll().where('attempt_key', '=', key),
    options('byKey'),
  );
  const openFor = precompiled(
    db,
    2,
    (transactionId: string, kind: string) =>
      db
        .selectFrom('charge_attempts')
        .selectAll()
        .where('transaction_id', '=', transactionId)
        .where('kind', '=', kind)
        .where('status', 'in', OPEN_STATUSES),
    options('openFor'),
  );
  // Only an open attempt settles, and the one settler learns it won from the row returned.
  const settleAs = (withTransaction: boolean) =>
    precompiled(
      db,
      withTransaction ? 6 : 5,
      (id: string, status: string, reference: string | null, code: string | null, at: string, transactionId?: string) =>
        db
          .updateTable('charge_attempts')
          .set({
            status,
            gateway_reference: reference,
            failure_code: code,
            updated_at: at,
            ...(withTransaction ? { transaction_id: transactionId! } : {}),
          })
          .where('id', '=', id)
          .where('status', 'in', OPEN_STATUSES)
          .returning('id'),
      options(withTransaction ? 'settleWithTransaction' : 'settle'),
    );
  return { insert, byKey, openFor, settle: settleAs(false), settleWithTransaction: settleAs(true) };
}

type AttemptStatements = ReturnType<typeof attemptStatements>;

/** Recording an attempt (or finding the one its key already has), and settling it. */
function attemptRecords(statements: AttemptStatements): Pick<AttemptRepository, 'record' | 'findByKey' | 'settle'> {
  const { insert, byKey, settle, settleWithTransaction } = statements;
  const findByKey = async (key: string) => {
    const [row] = await byKey(key);
    return row && toAttempt(row);
  };
  return {
    async record<K extends AttemptKind>(a: AttemptOf<K>) {
      // A key names its kind (`checkout:…`, `refund:…`): what is found under it is of the attempt's kind.
      const [inserted] = await insert(toAttemptRow(a));
      if (inserted) return { attempt: toAttempt(inserted) as AttemptOf<K>, fresh: true };
      const earlier = await findByKey(a.key);
      if (!earlier) throw new Error(`charge attempt ${a.key} vanished`);
      return { attempt: earlier as AttemptOf<K>, fresh: false };
    },
    findByKey,
    async settle(id, patch) {
      const won = patch.transactionId
        ? await settleWithTransaction(
            id,
            patch.status,
            patch.gatewayReference,
            patch.failureCode,
            patch.updatedAt,
            patch.transactionId,
          )
        : await settle(id, patch.status, patch.gatewayReference, patch.failureCode, patch.updatedAt);
      return won.length === 1;
    },
  };
}

/** The open attempts the reconciler asks about: listed, marked as asked, given their session's reference. */
function openAttempts(db: Executor): Pick<AttemptRepository, 'listOpen' | 'markAsked' | 'noteReference'> {
  return {
    async listOpen({ idleSince, kinds, limit, sessionsRecordedBefore }) {
      // updated_at is never before created_at: the first bound picks from the open index, the second drops the re-asked.
      let query = db
        .selectFrom('charge_attempts')
        .selectAll()
        .where('status', 'in', OPEN_STATUSES)
        .where('created_at', '<=', idleSince)
        .where('updated_at', '<=', idleSince);
      if (kinds) query = query.where('kind', 'in', [...kinds]);
      // Only a browser session has its reference noted while open; an answer asked for since makes it UNKNOWN.
      if (sessionsRecordedBefore)
        query = query.where((eb) =>
          eb.not(
            eb.and([
              eb('kind', '=', 'PURCHASE'),
              eb('status', '=', 'PENDING'),
              eb('gateway_reference', 'is not', null),
              eb('created_at', '>', sessionsRecordedBefore),
            ]),
          ),
        );
      return (await query.orderBy('created_at').limit(limit).execute()).map(toAttempt);
    },
    async markAsked(id, at) {
      await db
        .updateTable('charge_attempts')
        .set({ updated_at: at })
        .where('id', '=', id)
        .where('status', 'in', OPEN_STATUSES)
        .execute();
    },
    async noteReference(id, reference) {
      await db
        .updateTable('charge_attempts')
        .set({ gateway_reference: reference })
        .where('id', '=', id)
        .where('status', 'in', OPEN_STATUSES)
        .execute();
    },
  };
}

/** An attempt by its id, a transaction's latest of a kind, and its open one. */
function attemptLookups(
  db: Executor,
  openFor: AttemptStatements['openFor'],
): Pick<AttemptRepository, 'findById' | 'latestFor' | 'findOpenFor'> {
  return {
    async findById(id) {
      const row = await db.selectFrom('charge_attempts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAttempt(row);
    },
    async latestFor(transactionId, kind) {
      const row = await db
        .selectFrom('charge_attempts')
        .selectAll()
        .where('transaction_id', '=', transactionId)
        .where('kind', '=', kind)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toAttempt(row);
    },
    async findOpenFor(transactionId, kind) {
      const [row] = await openFor(transactionId, kind);
      return row && toAttempt(row);
    },
  };
}

/**
 * Charge attempts (recorded before the gateway is called). The statements every purchase, charge
 * and refund runs are compiled once (src/store/precompiled.ts); `writes` runs them on a
 * transaction's own connection where the store has one.
 */
export function chargeAttemptsStore(db: Executor, dialect: DialectName, writes?: ReadRows): AttemptRepository {
  const statements = attemptStatements(db, dialect, writes);
  return { ...attemptRecords(statements), ...openAttempts(db), ...attemptLookups(db, statements.openFor) };
}

export function idempotencyStore(db: Executor): Repositories['idempotency'] {
  return {
    async claim(scope, key, requestHash, at) {
      try {
        await db
          .insertInto('idempotency_keys')
          .values({
            vendor_id: scope.vendorId,
            environment: scope.environment,
            idempotency_key: key,
            request_hash: requestHash,
            state: 'IN_PROGRESS',
            status_code: null,
            response_body: null,
            created_at: at,
          })
          .execute();
        return undefined;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .$call(whereScope(scope))
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (!row) return this.claim(scope, key, requestHash, at); // released in between: claim again
      return {
        requestHash: row.request_hash,
        state: row.state as 'IN_PROGRESS' | 'DONE',
        statusCode: row.status_code,
        body: row.response_body,
        claimedAt: row.created_at,
      };
    },
    async takeOver(scope, key, requestHash, claimedAt, at) {
      // Conditional on the claim as it was read: of two retries racing for a dead request's key, one wins.
      const result = await db
        .updateTable('idempotency_keys')
        .set({ created_at: at })
        .$call(whereScope(scope))
        .where('idempotency_key', '=', key)
        .where('state', '=', 'IN_PROGRESS')
        .where('request_hash', '=', requestHash)
        .where('created_at', '=', claimedAt)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async complete(scope, key, statusCode, body) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'DONE', status_code: statusCode, response_body: body })
        .$call(whereScope(scope))
        .where('idempotency_key', '=', key)
        .execute();
    },
    async release(scope, key) {
      await db.deleteFrom('idempotency_keys').$call(whereScope(scope)).where('idempotency_key', '=', key).execute();
    },
    async purgeOlderThan(at) {
      const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
