import { Type } from 'typebox';
import type { PauseOutcome } from '../../../domain/billing/index.ts';
import { pauseOf } from '../../presenters.ts';

/*
 * The wire shapes of pausing (docs/decisions.md §41): opentill's own, not in the original API. A paused
 * subscription keeps the seed's `transactionStatus` (SUBSCRIPTION_STATUS_ACTIVE); `pause` says the rest.
 */

const isoOrNull = (description: string, example: string | null) =>
  Type.Union([Type.String(), Type.Null()], { description, examples: [example] });

export const PauseInfo = Type.Union(
  [
    Type.Object(
      {
        startsAt: Type.String({
          description: 'When the pause takes effect: the end of the period already paid.',
          examples: ['2027-02-01T09:30:00.000Z'],
        }),
        resumesAt: isoOrNull(
          'When it ends and a new period starts and is charged; null: paused until resumed. Past: the pause is over.',
          '2027-04-01T00:00:00.000Z',
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    examples: [{ startsAt: '2027-02-01T09:30:00.000Z', resumesAt: '2027-04-01T00:00:00.000Z' }],
    description:
      "opentill's own: the subscription's latest pause (scheduled, in effect, or over: compare with now); null when it was never paused, or its pause was called off before it took effect.",
  },
);

export const PauseBody = Type.Object(
  {
    resumeAt: Type.Optional(
      isoOrNull(
        'When to resume (ISO 8601 date-time, after the end of the paid period): a new period starts then and is charged. Absent or null: paused until resumed.',
        '2027-04-01T00:00:00Z',
      ),
    ),
  },
  { additionalProperties: false, description: "opentill's own, optional: the resume date." },
);

export const ResumeBody = Type.Object(
  {},
  { additionalProperties: false, description: 'Nothing: resume takes no fields.' },
);

export const PauseResult = Type.Object(
  {
    id: Type.String({ description: 'The transaction id.', examples: ['TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'] }),
    transactionStatus: Type.String({
      description: 'Its status now: a paused subscription stays SUBSCRIPTION_STATUS_ACTIVE.',
      examples: ['SUBSCRIPTION_STATUS_ACTIVE'],
    }),
    changed: Type.Boolean({ description: 'False when it already was so: nothing changed.', examples: [true] }),
    nextCharge: isoOrNull(
      'When it is charged next: the resume date, or null while paused until resumed.',
      '2027-04-01T00:00:00.000Z',
    ),
    pause: PauseInfo,
  },
  { description: "opentill's own: the subscription after the pause or resume." },
);

export const presentPause = ({ transaction: t, changed }: PauseOutcome) => ({
  id: t.id,
  transactionStatus: t.status,
  changed,
  nextCharge: t.nextCharge,
  pause: pauseOf(t),
});
