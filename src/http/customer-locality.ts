import type { FastifyRequest } from 'fastify';
import { invalidInput } from '../domain/errors.ts';
import type { Environment } from '../domain/model.ts';
import type { Locality } from '../domain/checkout/index.ts';
import { isKnownCountry } from '../domain/tax/index.ts';
import { countryOfIp, regionOfPostalCode } from '../geo/locate.ts';

/**
 * Where a customer is: the country of the request's address (X-Forwarded-For only through a
 * trusted proxy, as configured), refined to a state or province by a ZIP or postal code (in the US
 * the ZIP code itself is kept too, for the ZIP-level sales tax). In the sandbox a vendor may name the
 * country outright, to try prices of other countries. In production the address decides; only when it
 * tells nothing (a private network, an unlisted range) is the country the buyer chose honoured, and
 * without a choice it counts as the United States.
 */
export const FALLBACK_COUNTRY = 'US';

export interface LocalityInput {
  zip?: string | undefined;
  /** Honoured in the sandbox, and in production when the address has no known country. */
  country?: string | undefined;
}

export function customerLocality(
  request: FastifyRequest,
  environment: Environment,
  input: LocalityInput = {},
): Locality & { source: 'ip' | 'override' | 'chosen' | 'fallback' } {
  let source: 'ip' | 'override' | 'chosen' | 'fallback' = 'ip';
  // The sandbox's named country comes first; production's address wins over any choice.
  let country = environment === 'sandbox' && input.country ? undefined : countryOfIp(request.ip);
  if (!country && input.country) {
    country = input.country.toUpperCase();
    if (!/^[A-Z]{2}$/.test(country) || !isKnownCountry(country))
      throw invalidInput(`country "${input.country}" is not a known ISO 3166-1 alpha-2 code.`);
    source = environment === 'sandbox' ? 'override' : 'chosen';
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
