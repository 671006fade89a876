import { createRequire } from 'node:module';
import { US_ZIP_STATE_RANGES } from './us-zip-states.ts';

/**
 * Where a customer is, for prices and tax: the country from the request's IP address (a GeoIP
 * database shipped inside the geoip-country package, read locally), and the state or province
 * from a US ZIP code (ranges generated from the zipcodes package: support/generate-us-zip-states.ts)
 * or a Canadian postal code. Infrastructure, not domain: it reads data files.
 */
const require = createRequire(import.meta.url);
type GeoIp = { lookup(ip: string): { country: string } | null };
// Read with the first address looked up, not at start: its tables are 8 MB a process keeps.
let geoip: GeoIp | undefined;

/** ISO 3166-1 alpha-2 country of an IPv4 or IPv6 address; undefined for private or unknown ones. */
export function countryOfIp(ip: string): string | undefined {
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  const found = (geoip ??= require('geoip-country') as GeoIp).lookup(address);
  return found?.country || undefined;
}

// Canada Post's first letter names the province (X is shared by NT and NU; both tax alike).
const CANADIAN_PROVINCE_BY_LETTER: Record<string, string> = {
  A: 'NL',
  B: 'NS',
  C: 'PE',
  E: 'NB',
  G: 'QC',
  H: 'QC',
  J: 'QC',
  K: 'ON',
  L: 'ON',
  M: 'ON',
  N: 'ON',
  P: 'ON',
  R: 'MB',
  S: 'SK',
  T: 'AB',
  V: 'BC',
  X: 'NT',
  Y: 'YT',
};

const SPANISH_TERRITORY_BY_PREFIX: Record<string, string> = { '35': 'GC', '38': 'TF', '51': 'CE', '52': 'ML' };

/** The state whose range of ZIP codes holds zip (five digits: text order is number order), by binary search. */
function stateOfZip(zip: string): string | undefined {
  let low = 0;
  let high = US_ZIP_STATE_RANGES.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last, state] = US_ZIP_STATE_RANGES[middle]!;
    if (zip < first) high = middle - 1;
    else if (zip > last) low = middle + 1;
    else return state;
  }
  return undefined;
}

/** The state of a US ZIP code or the province of a Canadian postal code; undefined if unknown. */
export function regionOfPostalCode(country: string, postalCode: string): string | undefined {
  const code = postalCode.trim().toUpperCase();
  if (country === 'US') {
    const zip = /^(\d{5})(?:-\d{4})?$/.exec(code)?.[1];
    return zip ? stateOfZip(zip) : undefined;
  }
  if (country === 'CA' && /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/.test(code)) return CANADIAN_PROVINCE_BY_LETTER[code[0]!];
  // Spain's territories outside the EU VAT area: the Canary Islands, Ceuta and Melilla.
  if (country === 'ES' && /^\d{5}$/.test(code)) return SPANISH_TERRITORY_BY_PREFIX[code.slice(0, 2)];
  return undefined;
}
