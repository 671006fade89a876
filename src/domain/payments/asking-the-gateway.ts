import { withinMs } from '../deadline.ts';
import type { ChargeResult, NotFound, RefundResult } from './gateway.ts';

/** Runs one gateway call with a time limit; whatever goes wrong (a throw, no answer in time) is UNKNOWN. */
export async function askGateway<T extends ChargeResult | RefundResult | NotFound>(
  call: () => Promise<T>,
  timeoutMs: number,
): Promise<T | { status: 'UNKNOWN' }> {
  const unknown = { status: 'UNKNOWN' } as const;
  // Through a promise, so a call that throws before it returns one is UNKNOWN too.
  const answer = new Promise<T>((resolve) => resolve(call()));
  return withinMs(
    answer.catch((): { status: 'UNKNOWN' } => unknown),
    timeoutMs,
    unknown,
  );
}
