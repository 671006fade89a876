import { Type } from 'typebox';
import { INSTANCE_NAME_MAX } from '../../../domain/catalog/index.ts';

// The wire shapes of opentill's own licence activations (docs/decisions.md §40).

export const LicenceKeyParams = Type.Object({
  key: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The licence key your customer entered (any case, surrounding spaces ignored).',
    examples: ['K7Q2M-4T6V8-X0Z2B-4D6F8-H0J2L'],
  }),
});

export const ActivateBody = Type.Object(
  {
    instanceName: Type.String({
      minLength: 1,
      maxLength: INSTANCE_NAME_MAX,
      description: 'What names the machine or installation, as your app chooses it (a host name, a device id).',
      examples: ['build-server-01'],
    }),
  },
  { additionalProperties: false, description: 'A field this call does not know is refused (400).' },
);

export const DeactivateBody = Type.Object(
  {
    instanceId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The instanceId that activate answered.',
      examples: ['TC-IN_01JD3W7Q0B2C4D6E8F0G2H4J6K'],
    }),
  },
  { additionalProperties: false, description: 'A field this call does not know is refused (400).' },
);

const instanceFields = {
  instanceId: Type.String({ description: 'The instance.', examples: ['TC-IN_01JD3W7Q0B2C4D6E8F0G2H4J6K'] }),
  instanceName: Type.String({ description: 'The name it was activated with.', examples: ['build-server-01'] }),
  activatedAt: Type.String({ format: 'date-time', description: 'When (UTC).', examples: ['2026-11-27T10:15:30.123Z'] }),
};

const stateFields = {
  licence: Type.String({ description: 'The key asked about, as sent.', examples: ['K7Q2M-4T6V8-X0Z2B-4D6F8-H0J2L'] }),
  status: Type.String({
    enum: ['ACTIVE', 'INACTIVE'],
    description:
      'ACTIVE: paid, active, in trial, or cancelled but paid up, and neither revoked nor replaced. INACTIVE: refunded, charged back, cancelled, failed, revoked, or replaced by a reissued key.',
    examples: ['ACTIVE'],
  }),
  productId: Type.String({
    description: 'The product that issued it.',
    examples: ['TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'],
  }),
  transactionId: Type.String({
    description: 'The purchase that issued it.',
    examples: ['TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'],
  }),
  activationLimit: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "Instances it may be activated on: the product's limit, or a per-seat purchase's seats; null: no limit.",
    examples: [3],
  }),
  activationsUsed: Type.Integer({ description: 'Instances it is activated on now.', examples: [1] }),
  instances: Type.Array(Type.Object(instanceFields), {
    description: 'Where it is activated, oldest first.',
    examples: [
      [
        {
          instanceId: 'TC-IN_01JD3W7Q0B2C4D6E8F0G2H4J6K',
          instanceName: 'build-server-01',
          activatedAt: '2026-11-27T10:15:30.123Z',
        },
      ],
    ],
  }),
};

export const LicenceState = Type.Object(stateFields, { description: 'A licence key and where it is activated.' });

export const ActivatedLicence = Type.Object(
  { ...stateFields, ...instanceFields },
  { description: 'The instance activated (or found again by its name), and the key as it is now.' },
);
