import { randomBytes } from 'node:crypto';

/** Prefixes that clients of the original service have seen (docs/decisions.md §8). */
export const ID_PREFIX = {
  transaction: 'TC-TR_',
  product: 'TC-PR_',
  entry: 'TC-EN_',
  hash: 'TC-BA_',
  customizedProduct: 'PC_',
  vendor: 'TC-VE_',
  credential: 'TC-CR_',
  paymentMethod: 'TC-PM_',
  customer: 'TC-CU_',
  licence: 'TC-LI_',
  licenceInstance: 'TC-IN_',
  chargeAttempt: 'TC-CA_',
  coupon: 'TC-CO_',
  panelUser: 'TC-US_',
  email: 'TC-EM_',
  payout: 'TC-PO_',
  operator: 'TC-OP_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: no I, L, O, U

let encodedMs = NaN;
let encodedTime = '';
/** The time part, kept for the last millisecond asked: IDs made together share it. */
function encodeTime(ms: number): string {
  if (ms === encodedMs) return encodedTime;
  let out = '';
  for (let i = 0, rest = ms; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  encodedMs = ms;
  return (encodedTime = out);
}

// Random bytes are drawn from the CSPRNG 4 KiB at a time: one call per ID cost a tenth of a
// bulk renewal run. Each byte is used once.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let used = 0;

function encodeRandom(chars: number): string {
  if (used + chars > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    used = 0;
  }
  let out = '';
  for (let i = 0; i < chars; i++) out += ALPHABET[pool[used + i]! & 31];
  used += chars;
  return out;
}

/**
 * Time-ordered first (new rows append to the index), then 100 random bits so IDs cannot be guessed.
 */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return ID_PREFIX[kind] + encodeTime(nowMs) + encodeRandom(20);
}

/** A random secret token in URL-safe base64. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
