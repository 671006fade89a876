import { invalidInput } from '../errors.ts';
import type { VendorSettings } from '../model.ts';
import { requireEmail } from '../validation.ts';

/** The largest logo accepted, in bytes of image (before base64). */
export const LOGO_MAX_BYTES = 100 * 1024;
export const ADDRESS_MAX_LINES = 6;

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** What a vendor may type for the seller details; '' or null clears one, undefined leaves it. */
export interface SellerDetailsInput {
  sellerName?: string | null | undefined;
  /** Lines, or one text with a line per line. */
  address?: string | string[] | null | undefined;
  country?: string | null | undefined;
  taxId?: string | null | undefined;
  supportEmail?: string | null | undefined;
  /** A data URL (PNG or JPEG), or the image's bytes. */
  logo?: string | Uint8Array | null | undefined;
}

const blank = (value: unknown) => value === null || (typeof value === 'string' && value.trim() === '');
// Control characters other than the line breaks an address is split on never belong in a document.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function text(value: unknown, label: string, max: number): string {
  if (typeof value !== 'string') throw invalidInput(`${label} must be text.`);
  const trimmed = value.trim();
  if ([...trimmed].length > max) throw invalidInput(`${label} can have at most ${max} characters.`);
  if (CONTROL.test(trimmed)) throw invalidInput(`${label} cannot contain control characters.`);
  return trimmed;
}

/** The image type of a PNG or JPEG by its first bytes, or undefined. */
export function imageType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | undefined {
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return undefined;
}

/** A logo as a data URL: PNG or JPEG (by content, not by name), at most 100 KB. */
export function requireLogo(value: string | Uint8Array): string {
  let bytes: Uint8Array;
  if (typeof value === 'string') {
    const match = /^data:image\/(?:png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/.exec(value.trim());
    if (!match) throw invalidInput('The logo must be a PNG or JPEG image.');
    bytes = Buffer.from(match[1]!, 'base64');
  } else bytes = value;
  if (bytes.length === 0) throw invalidInput('The logo file is empty.');
  if (bytes.length > LOGO_MAX_BYTES)
    throw invalidInput(`The logo can be at most 100 KB; this one is ${Math.ceil(bytes.length / 1024)} KB.`);
  const type = imageType(bytes);
  if (!type) throw invalidInput('The logo must be a PNG or JPEG image.');
  return `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** The seller details checked and normalised, as settings to store. */
export function sellerSettings(input: SellerDetailsInput): VendorSettings {
  const out: VendorSettings = {};
  if (input.sellerName !== undefined)
    out.sellerName = blank(input.sellerName) ? null : text(input.sellerName, 'The seller name', 200);
  if (input.address !== undefined) {
    if (blank(input.address)) out.address = null;
    else {
      const raw = typeof input.address === 'string' ? input.address.split(/\r?\n/) : input.address;
      if (!Array.isArray(raw)) throw invalidInput('The address must be text.');
      const lines = raw.map((line) => text(line, 'An address line', 200)).filter(Boolean);
      if (lines.length > ADDRESS_MAX_LINES)
        throw invalidInput(`The address can have at most ${ADDRESS_MAX_LINES} lines.`);
      out.address = lines.length > 0 ? lines : null;
    }
  }
  if (input.country !== undefined) {
    if (blank(input.country)) out.country = null;
    else {
      const code = text(input.country, 'The country', 2).toUpperCase();
      if (!/^[A-Z]{2}$/.test(code) || !regions.of(code))
        throw invalidInput('The country must be a two-letter code such as DE, FR or US.');
      out.country = code;
    }
  }
  if (input.taxId !== undefined) {
    if (blank(input.taxId)) out.taxId = null;
    else {
      const id = text(input.taxId, 'The VAT or tax ID', 40);
      if (!/^[\p{L}\p{N}][\p{L}\p{N} .\-/]*$/u.test(id))
        throw invalidInput('The VAT or tax ID can have letters, digits, spaces, dots, dashes and slashes.');
      out.taxId = id;
    }
  }
  if (input.supportEmail !== undefined) {
    if (blank(input.supportEmail)) out.supportEmail = null;
    else {
      const email = text(input.supportEmail, 'The support e-mail', 254);
      try {
        out.supportEmail = requireEmail(email);
      } catch {
        throw invalidInput('The support e-mail must be an e-mail address such as help@example.com.');
      }
    }
  }
  if (input.logo !== undefined)
    out.logo =
      input.logo === null || (typeof input.logo === 'string' && input.logo.trim() === '')
        ? null
        : requireLogo(input.logo);
  return out;
}
