import { AppError } from '../domain/errors.ts';

/**
 * A driver error that says the database cannot serve right now, as opposed to a bug or a refused
 * statement (docs/operations.md): it becomes `SERVICE_UNAVAILABLE` with a Retry-After at the store's
 * edge, so every caller (API, pages, CLI, worker) sees one kind of error and clients are told to
 * retry instead of being shown a 500. The driver's error stays as the cause, for the log.
 */

/** PostgreSQL SQLSTATEs of a database that cannot serve now: connection lost, shutting down or starting, out of connections, disk or memory, a lock or statement timeout, a serialization conflict. */
const POSTGRES_CLASSES = ['08', '53', '57P'];
const POSTGRES_CODES = new Set(['55P03', '57014', '40001', '40P01', '58030']);
/** SQLite's: the write lock not had within busy_timeout, the disk full, an I/O error, the file gone or read-only, out of memory. */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|NOMEM|PROTOCOL|READONLY)/;
/** The network's and the file system's. */
const SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOSPC',
  'EDQUOT',
  'EIO',
]);
/** node-postgres says these in words only: a connection cut, a pool that found no connection in time, a client that died. */
const POSTGRES_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Query read timeout)/;

export function isOutage(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  if (err instanceof AggregateError) return err.errors.some(isOutage);
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SQLITE_CODES.test(code) || SYSTEM_CODES.has(code) || POSTGRES_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && POSTGRES_CLASSES.some((c) => code.startsWith(c))) return true;
  }
  return typeof message === 'string' && POSTGRES_MESSAGES.test(message);
}

/** How long a client is told to wait before retrying: about as long as a restarted database takes to take connections again. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The error a caller sees for an outage; anything else is returned as it is. */
export function asOutage(err: unknown): unknown {
  if (err instanceof AppError || !isOutage(err)) return err;
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The service cannot reach its database right now; retry in a few seconds.',
    {
      retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
      cause: err,
    },
  );
}
