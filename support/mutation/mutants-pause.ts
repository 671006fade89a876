import type { Mutant } from './mutant.ts';

const BILLING = 'test/billing/pause.test.ts';
const API = 'test/api/pause-subscription.test.ts';

/** Mutants of pausing and resuming subscriptions (issue 37, docs/decisions.md §41). */
export const pauseMutants: Mutant[] = [
  {
    id: 'pause-resume-keeps-old-anchor',
    file: 'src/domain/billing/billing-period.ts',
    find: 'n - (billing.anchorPeriod ?? 0)',
    replace: 'n',
    tests: [BILLING],
  },
  {
    id: 'pause-starts-now-not-at-period-end',
    file: 'src/domain/billing/pause-rules.ts',
    find: '    startsAt: t.nextCharge,\n',
    replace: '    startsAt: now.toISOString(),\n',
    tests: [BILLING],
  },
  {
    id: 'pause-dated-resume-not-reanchored',
    file: 'src/domain/billing/pause-rules.ts',
    find: 'nextCharge: resumesAt, anchor: resumesAt, anchorPeriod: t.billing.period,',
    replace: 'nextCharge: resumesAt, anchor: t.billing.anchor, anchorPeriod: t.billing.anchorPeriod ?? 0,',
    tests: [BILLING],
  },
  {
    id: 'pause-open-ended-still-charged-at-period-end',
    file: 'src/domain/billing/pause-rules.ts',
    find: '        nextCharge: null,\n        anchor: t.billing.anchor,',
    replace: '        nextCharge: pause.startsAt,\n        anchor: t.billing.anchor,',
    tests: [BILLING, API],
  },
  {
    id: 'pause-called-off-keeps-pause-start-as-anchor',
    file: 'src/domain/billing/pause-rules.ts',
    find: 'anchor: pause.priorAnchor ?? t.billing.anchor,',
    replace: 'anchor: pause.startsAt,',
    tests: [BILLING],
  },
  {
    id: 'pause-allowed-in-dunning',
    file: 'src/domain/billing/pause-rules.ts',
    find: 'if (b.billing.failedAttempts > 0)',
    replace: 'if (b.billing.failedAttempts > 99)',
    tests: [BILLING],
  },
  {
    id: 'pause-ignores-renewal-in-flight',
    file: 'src/domain/billing/pauses.ts',
    find: 'if (await repos.pauses.renewalOpen(id))',
    replace: 'if (false as boolean)',
    tests: [API],
  },
  {
    id: 'pause-resume-date-may-precede-period-end',
    file: 'src/domain/billing/pause-rules.ts',
    find: 'if (Date.parse(resumesAt) <= earliest)',
    replace: 'if (Date.parse(resumesAt) < now.getTime())',
    tests: [API],
  },
  {
    id: 'pause-resume-charges-at-next-anchor-not-now',
    file: 'src/domain/billing/pause-rules.ts',
    find: 'return { nextCharge: at, anchor: at, anchorPeriod: b.billing.period,',
    replace: 'return { nextCharge: pause.startsAt, anchor: at, anchorPeriod: b.billing.period,',
    tests: [BILLING, API],
  },
  {
    id: 'pause-cancel-during-pause-waits-for-period-end',
    file: 'src/domain/billing/pauses.ts',
    find: "if (state === 'paused') return { transaction: t, endsNow: true };",
    replace: "if (state === 'paused') return { transaction: t, endsNow: false };",
    tests: [BILLING],
  },
  {
    id: 'pause-cancel-before-pause-keeps-it',
    file: 'src/domain/billing/pauses.ts',
    find: "if (state === 'none' || !t.billing) return { transaction: t, endsNow: false };",
    replace: 'return { transaction: t, endsNow: false };',
    tests: [BILLING],
  },
  {
    id: 'pause-plan-switch-while-paused',
    file: 'src/domain/portal/plan-switch.ts',
    find: "if (pauseStateOf(transaction, deps.clock.now(scope)) !== 'none') return { transaction, options: [] };",
    replace: '',
    tests: ['test/api/pause-pages.test.ts'],
  },
];
