import { described, errorResponses } from '../../schemas.ts';
import type { EnvironmentContext, HttpApp } from '../../http-app.ts';
import { ActivateBody, ActivatedLicence, DeactivateBody, LicenceKeyParams, LicenceState } from './licence-schemas.ts';

/** opentill's own (docs/decisions.md §40); callable with the vendor's credential or with the key alone. */
const OWN = {
  'x-opentill-extension': true,
  tags: ['licences'],
  security: [{}, { apiCredentials: [] }],
} as const;
const BY_KEY = { config: { licenceKey: true } };

const KEY_ALONE =
  "Without an Authorization header the key itself is the secret (from your customer's app), limited per client address; with your credential, only your own keys answer (another vendor's is 404).";

/** /v1/licences/{key}: where a licence key is activated; activate and deactivate instances. */
export function licenceRoutes(app: HttpApp, { services, environment }: EnvironmentContext) {
  const access = (scope: Parameters<typeof services.licences.read>[0]['scope']) => ({ environment, scope });

  app.get(
    '/licences/:key',
    {
      ...BY_KEY,
      schema: {
        ...OWN,
        operationId: 'readLicence',
        summary: 'Read a licence key: status, activation limit, instances',
        description: `ACTIVE while paid up and neither revoked nor replaced by a reissued key. ${KEY_ALONE}`,
        params: LicenceKeyParams,
        response: { 200: described(LicenceState, 'The key and where it is activated.'), ...errorResponses },
      },
    },
    async (request) => services.licences.read(access(request.scope), request.params.key),
  );

  app.post(
    '/licences/:key/activate',
    {
      ...BY_KEY,
      schema: {
        ...OWN,
        operationId: 'activateLicence',
        summary: 'Activate a licence key on an instance',
        description: `Takes one of the key's activation slots for \`instanceName\` and answers its \`instanceId\`. The same name again answers the same instance and takes no new slot. Beyond the limit: 400 INVALID_STATE; an inactive key: 400 INVALID_STATE. ${KEY_ALONE}`,
        params: LicenceKeyParams,
        body: ActivateBody,
        response: { 200: described(ActivatedLicence, 'Activated: the instance and the key.'), ...errorResponses },
      },
    },
    async (request) => services.licences.activate(access(request.scope), request.params.key, request.body),
  );

  app.post(
    '/licences/:key/deactivate',
    {
      ...BY_KEY,
      schema: {
        ...OWN,
        operationId: 'deactivateLicence',
        summary: 'Deactivate an instance of a licence key',
        description: `Frees the slot of \`instanceId\`. An instance the key does not have (or no longer has) is 404; send an Idempotency-Key to make a retry answer the first result. ${KEY_ALONE}`,
        params: LicenceKeyParams,
        body: DeactivateBody,
        response: { 200: described(LicenceState, 'Deactivated: the key as it is now.'), ...errorResponses },
      },
    },
    async (request) => services.licences.deactivate(access(request.scope), request.params.key, request.body),
  );
}
