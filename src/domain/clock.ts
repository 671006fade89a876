import type { Scope } from './model.ts';

/**
 * The clock is an interface so billing and expiry can be tested and a sandbox can move time.
 * `now(scope)` is the time in that vendor's environment: real time in production, and real time
 * plus the vendor's offset in a sandbox whose clock the vendor moved forward.
 */
export interface Clock {
  now(scope?: Scope): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let lastMs = NaN;
let lastIso = '';
/**
 * `date.toISOString()`, kept for the last instant asked: a billing batch stamps hundreds of records
 * with the same millisecond, and each conversion cost about as much as building the record.
 */
export function isoString(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    lastIso = date.toISOString();
    lastMs = ms;
  }
  return lastIso;
}

export function fixedClock(start: Date): Clock & { advance(ms: number): void; set(date: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(date: Date) {
      current = date.getTime();
    },
  };
}

/** A clock whose sandboxes can run ahead of real time, one offset per vendor. */
export interface VendorClock extends Clock {
  /** Real time, whatever the scope. */
  real(): Date;
  offsetOf(vendorId: string): number;
  /** Moves the vendor's sandbox; a vendor only moves it forward, the demo's seed sets it back to date its purchases. */
  setOffset(vendorId: string, offsetMs: number): void;
  /** Vendors whose sandbox runs ahead, with their offsets. */
  ahead(): [vendorId: string, offsetMs: number][];
}

export function vendorClock(base: Clock): VendorClock {
  const offsets = new Map<string, number>();
  return {
    real: () => base.now(),
    now(scope) {
      const real = base.now();
      const offset = scope?.environment === 'sandbox' ? offsets.get(scope.vendorId) : undefined;
      return offset !== undefined && offset !== 0 ? new Date(real.getTime() + offset) : real;
    },
    offsetOf: (vendorId) => offsets.get(vendorId) ?? 0,
    setOffset(vendorId, offsetMs) {
      if (offsetMs !== 0) offsets.set(vendorId, offsetMs);
      else offsets.delete(vendorId);
    },
    ahead: () => [...offsets.entries()],
  };
}
