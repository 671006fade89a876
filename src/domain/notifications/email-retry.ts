import { AppError } from '../errors.ts';
import type { EmailContext } from './email-context.ts';

const MAX_RETRY_MS = 3_600_000;

/** The delay before try `tries + 1` after `tries` refusals: doubling from the first, at most an hour. */
export function retryDelayMs(tries: number, firstRetryMs: number): number {
  return Math.min(MAX_RETRY_MS, firstRetryMs * 2 ** Math.max(0, tries - 1));
}

/**
 * An e-mail's record written, tried again while the database is away (for up to half a lease): an
 * e-mail the server took must not be sent again because its outcome could not be written, nor one
 * claimed wait out its lease because it could not be handed back (docs/operations.md).
 */
export async function whileAway<T>(ctx: Pick<EmailContext, 'leaseMs'>, write: () => Promise<T>): Promise<T> {
  const until = Date.now() + ctx.leaseMs / 2;
  for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE') || Date.now() + delayMs > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
