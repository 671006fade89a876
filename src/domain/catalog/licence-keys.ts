import { randomBytes } from 'node:crypto';

const KEY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Five groups of five, 125 random bits: easy to read out, impossible to guess. */
export function newLicenceKey(): string {
  const bytes = randomBytes(25);
  const chars = [...bytes].map((b) => KEY_ALPHABET[b & 31]).join('');
  return chars.match(/.{5}/g)!.join('-');
}
