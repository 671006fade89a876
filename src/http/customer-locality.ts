import type { FastifyRequest } from 'fastify';
import { invalidInput } from '../domain/errors.ts';
import type { Environment } from '../domain/model.ts';
import type { Locality } from '../domain/purchases.ts';
import { isKnownCountry } from '../domain/tax-rates.ts';
import { countryOfIp, regionOfPostalCode } from '../geo/locate.ts';

/**
 * Where a customer is: the country of the request's address (X-Forwarded-For only through a
 * trusted proxy, as configured), refined to a state or province by a ZIP or postal code (in the US
 * the ZIP code itself is kept too, for the ZIP-level sales tax). In the
 * sandbox a vendor may name the country outright, to try prices of other countries.
 * An address with no known country (a private network, say) counts as the United States.
 */
export const FALLBACK_COUNTRY = 'US';

export interface LocalityInput {
  zip?: string | undefined;
  /** Honoured in the sandbox only. */
  country?: string | undefined;
}

export function customerLocality(
  request: FastifyRequest,
  environment: Environment,
  input: LocalityInput = {},
): Locality & { source: 'ip' | 'override' | 'fallback' } {
  let country: string | undefined;
  let source: 'ip' | 'override' | 'fallback' = 'ip';
  if (input.country && environment === 'sandbox') {
    country = input.country.toUpperCase();
    if (!/^[A-Z]{2}$/.test(country) || !isKnownCountry(country)) throw invalidInput(`country "${input.country}" is not a known ISO 3166-1 alpha-2 code.`);
    source = 'override';
  } else {
    country = countryOfIp(request.ip);
  }
  if (!country) {
    country = FALLBACK_COUNTRY;
    source = 'fallback';
  }
  const region = input.zip ? regionOfPostalCode(country, input.zip) : undefined;
  // A US ZIP code also picks its row of the ZIP-level sales tax table, when one is imported.
  const zip = country === 'US' && input.zip ? input.zip.trim() : null;
  return { country, region: region ?? null, zip, source };
}
