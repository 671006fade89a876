import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/domain/errors.ts';
import { whenDatabaseAnswers } from '../../src/database-wait.ts';
import { repeatedFailures, type FailureLine } from '../../src/repeated-failures.ts';
import { asOutage, isOutage } from '../../src/store/outages.ts';

const coded = (code: string, message = 'driver error') => Object.assign(new Error(message), { code });

describe('what counts as the database being unavailable', () => {
  test('PostgreSQL lost, shutting down, out of connections, a lock or statement timeout, a serialization conflict', () => {
    for (const code of [
      '08006',
      '08001',
      '08P01',
      '57P01',
      '57P02',
      '57P03',
      '53300',
      '53100',
      '55P03',
      '57014',
      '40001',
      '40P01',
    ]) {
      assert.ok(isOutage(coded(code)), code);
    }
  });

  test('the network and the disk: refused, reset, timed out, no space, an I/O error', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOSPC', 'EDQUOT', 'EIO'])
      assert.ok(isOutage(coded(code)), code);
    assert.ok(
      isOutage(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')])),
      "node's two-address connect failure",
    );
  });

  test('SQLite: busy past its timeout, full, an I/O error, the file gone or read-only', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_LOCKED',
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
      'SQLITE_CANTOPEN',
      'SQLITE_READONLY_DBMOVED',
    ]) {
      assert.ok(isOutage(coded(code)), code);
    }
  });

  test("node-postgres's words for a cut connection and an exhausted pool", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated',
      'timeout exceeded when trying to connect',
      'Client was closed and is not queryable',
    ]) {
      assert.ok(isOutage(new Error(message)), message);
    }
  });

  test('a bug or a refused statement is not an outage: it stays a 500, or whatever its caller makes of it', () => {
    for (const err of [
      coded('23505'),
      coded('23503'),
      coded('42P01'),
      coded('22P02'),
      coded('0A000'),
      coded('SQLITE_CONSTRAINT_UNIQUE'),
      coded('SQLITE_ERROR'),
      coded('SQLITE_MISMATCH'),
      coded('ENOENT'),
      new TypeError('x is undefined'),
      new Error('terminated the connection on purpose'),
      new AppError('NOT_FOUND', 'gone'),
      'a string',
      undefined,
    ]) {
      assert.equal(isOutage(err), false, String((err as { code?: string })?.code ?? err));
    }
  });

  test('an outage becomes SERVICE_UNAVAILABLE with a Retry-After and the driver error as its cause; anything else is left as it is', () => {
    const cause = coded('57P01', 'terminating connection due to administrator command');
    const converted = asOutage(cause);
    assert.ok(converted instanceof AppError);
    assert.equal(converted.code, 'SERVICE_UNAVAILABLE');
    assert.ok((converted.retryAfterSeconds ?? 0) > 0);
    assert.equal(converted.cause, cause);
    assert.doesNotMatch(converted.message, /administrator/, 'the driver says nothing to the client');
    const unique = coded('23505');
    assert.equal(asOutage(unique), unique);
    const already = new AppError('SERVICE_UNAVAILABLE', 'changed under this request', { retryAfterSeconds: 1 });
    assert.equal(asOutage(already), already);
  });
});

describe('repeated failures', () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, pass: (ms: number) => (now += ms) };
  };

  test('the first of a kind is written in full; the rest of its interval are counted, and the count written once the interval ends', () => {
    const lines: FailureLine[] = [];
    const time = clock();
    const failures = repeatedFailures((line) => lines.push(line), { intervalMs: 60_000, now: time.now });
    const err = new Error('database away');
    for (let i = 0; i < 1_000; i++) {
      failures.report('GET /v1/transaction/:transactionId answered 503 SERVICE_UNAVAILABLE', err);
      time.pass(10);
    }
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.details.err, err);
    time.pass(50_001);
    failures.report('GET /v1/transaction/:transactionId answered 503 SERVICE_UNAVAILABLE', err);
    assert.deepEqual(
      lines.slice(1).map((l) => l.details.repeated ?? 'full'),
      [999, 'full'],
      'the count of the interval that ended, then the next one in full',
    );
    failures.stop();
  });

  test('each kind has its own interval, and stopping writes what is still counted', () => {
    const lines: FailureLine[] = [];
    const time = clock();
    const failures = repeatedFailures((line) => lines.push(line), { intervalMs: 60_000, now: time.now });
    for (let i = 0; i < 3; i++) {
      failures.report('POST /v1/refund-transaction/:transactionId answered 503 SERVICE_UNAVAILABLE', undefined);
      failures.report('GET /readyz answered 503 SERVICE_UNAVAILABLE', undefined);
    }
    assert.equal(lines.length, 2);
    failures.stop();
    assert.deepEqual(
      lines.slice(2).map((l) => [l.message, l.details.repeated]),
      [
        ['POST /v1/refund-transaction/:transactionId answered 503 SERVICE_UNAVAILABLE', 2],
        ['GET /readyz answered 503 SERVICE_UNAVAILABLE', 2],
      ],
    );
  });
});

describe('waiting for the database at start', () => {
  const unavailable = () =>
    new AppError('SERVICE_UNAVAILABLE', 'away', { retryAfterSeconds: 2, cause: coded('ECONNREFUSED') });

  test('tries again until it answers, logging when it starts waiting and when it is back', async () => {
    let tries = 0;
    const log: string[] = [];
    const result = await whenDatabaseAnswers(
      async () => {
        if (++tries < 5) throw unavailable();
        return 'migrated';
      },
      { log: (line) => log.push(line), maxDelayMs: 20 },
    );
    assert.equal(result, 'migrated');
    assert.equal(tries, 5);
    assert.equal(log.length, 2, log.join('\n'));
    assert.match(log[0]!, /waiting for the database \(ECONNREFUSED\)/);
    assert.match(log[1]!, /ready after 4 failed tries/);
  });

  test('any other failure ends the start at once', async () => {
    let tries = 0;
    const broken = coded('42P01', 'relation does not exist');
    await assert.rejects(
      whenDatabaseAnswers(
        async () => {
          tries++;
          throw broken;
        },
        { log: () => undefined },
      ),
      (err) => err === broken,
    );
    assert.equal(tries, 1);
  });

  test('stopping ends the wait without starting', async () => {
    let stopping = false;
    const waiting = whenDatabaseAnswers(
      async () => {
        stopping = true;
        throw unavailable();
      },
      { log: () => undefined, stopping: () => stopping, maxDelayMs: 10 },
    );
    assert.equal(await waiting, undefined);
  });
});
