import { AppError, invalidInput } from './errors.ts';

/** Fewer than 5000 characters, counted as Unicode code points (docs/decisions.md §2, PAYLOAD_TOO_LONG). */
export const MAX_PAYLOAD_LENGTH = 4999;

// A practical address check: one @, no spaces, a dot in the domain. RFC 5322 in full accepts
// addresses no mail system delivers to.
const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:.]{2,}$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export function requireEmail(value: unknown, field = 'email'): string {
  if (typeof value !== 'string' || !isEmail(value.trim())) {
    throw new AppError('INVALID_EMAIL', `${field} must be an e-mail address such as customer@example.com.`);
  }
  return value.trim();
}

export function requirePayload(value: unknown, field = 'payload'): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw invalidInput(`${field} must be a string or null.`);
  // Characters are code points, as a person counts them: an emoji is one, not the two UTF-16 units that
  // value.length sees. Code points never outnumber UTF-16 units, so only a long string needs counting.
  const characters = value.length > MAX_PAYLOAD_LENGTH ? [...value].length : value.length;
  if (characters > MAX_PAYLOAD_LENGTH)
    throw new AppError('PAYLOAD_TOO_LONG', `${field} has ${characters} characters; it must have fewer than 5000.`);
  return value;
}

export function requireCountry(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z]{2}$/.test(value))
    throw invalidInput('country must be a two-letter ISO 3166-1 code such as "DE".');
  return value.toUpperCase();
}

/**
 * A web origin as a CSP frame-ancestors source: https://host[:port], or http:// for localhost and
 * private testing. Returned in its canonical form (lower case, no default port, no path).
 */
export function requireOrigin(value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw invalidInput(`"${String(value)}" is not an origin; write it as https://admin.example.com`);
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search ||
    url.hash
  ) {
    throw invalidInput(`"${String(value)}" is not an origin; write it as https://admin.example.com, without a path`);
  }
  return url.origin;
}

/** A card's expiry month is 1 to 12; a two-digit year means 20xx. Anything else is the customer's typo, not a decline. */
export function requireCardExpiry(card: { expMonth: number; expYear: number }): void {
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12)
    throw invalidInput('The card expiry month must be between 01 and 12.');
  if (
    !Number.isInteger(card.expYear) ||
    card.expYear < 0 ||
    (card.expYear > 99 && (card.expYear < 2000 || card.expYear > 2099))
  )
    throw invalidInput('The card expiry year is not valid.');
}

/** A day that exists, written YYYY-MM-DD (2030-02-30 is not one, though Date would roll it into March). */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}
