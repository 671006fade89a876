import type { Mutant } from './mutant.ts';

const DETAIL = 'test/api/panel-detail.test.ts';
const OVERVIEW = 'test/api/panel-detail-overview.test.ts';
const PLACES = 'test/unit/panel-detail-places.test.ts';
const BROWSER = 'test/browser/panel-detail.test.ts';

/** Mutants of the panel's transaction detail and the page fixes of issue 36 (issue 36). */
export const panelDetailMutants: Mutant[] = [
  {
    // The demo's purchases dated ahead of now instead of back.
    id: 'demo-purchases-in-the-future',
    file: 'src/demo-seed.ts',
    find: 'services.clock.setOffset(scope.vendorId, -daysAgo * DAY_MS);',
    replace: 'services.clock.setOffset(scope.vendorId, daysAgo * DAY_MS);',
    tests: [OVERVIEW],
  },
  {
    // The demo vendor's sandbox left a day back in time after the seed.
    id: 'demo-clock-not-put-right',
    file: 'src/demo-seed.ts',
    find: 'services.clock.setOffset(scope.vendorId, 0);',
    replace: 'void scope;',
    tests: [OVERVIEW],
  },
  {
    // The clock refusing to go back, as it did: every demo purchase lands on today.
    id: 'clock-offset-forward-only',
    file: 'src/domain/clock.ts',
    find: 'if (offsetMs !== 0) offsets.set(vendorId, offsetMs);',
    replace: 'if (offsetMs > 0) offsets.set(vendorId, offsetMs);',
    tests: [OVERVIEW],
  },
  {
    // "No sales yet" over a chart that has one day of sales.
    id: 'chart-empty-when-any-day-is',
    file: 'src/http/pages/panel/overview.ts',
    find: 'if (series.paid.every((v) => v === 0) && series.refunded.every((v) => v === 0))',
    replace: 'if (series.paid.some((v) => v === 0) && series.refunded.every((v) => v === 0))',
    tests: [OVERVIEW],
  },
  {
    // Send offered without SMTP, the link to copy with it.
    id: 'manage-link-choice-inverted',
    file: 'src/http/pages/panel/transaction-routes.ts',
    find: 'manageLink: services.emails.enabled',
    replace: 'manageLink: !services.emails.enabled',
    tests: [DETAIL],
  },
  {
    // A vendor mailing a customer without end.
    id: 'manage-link-send-unlimited',
    file: 'src/http/pages/panel/transaction-routes.ts',
    find: '{ rateLimit: { max: 5, timeWindow: 60_000 } },',
    replace: '{ rateLimit: { max: 500, timeWindow: 60_000 } },',
    tests: [DETAIL],
  },
  {
    // A region typed in lower case left as a code.
    id: 'region-name-case-sensitive',
    file: 'src/http/pages/panel/place-names.ts',
    find: 'REGIONS[country.toUpperCase()]?.[region.toUpperCase()] ?? region',
    replace: 'REGIONS[country.toUpperCase()]?.[region] ?? region',
    tests: [PLACES],
  },
  {
    // The phone's tab bar scrolling sideways again, its last tab cut at the edge.
    id: 'phone-tabs-scroll-and-cut',
    file: 'src/http/pages/panel/panel-layout.ts',
    find: '.panel nav{flex-direction:row;flex-wrap:wrap;gap:.15rem;',
    replace: '.panel nav{flex-direction:row;overflow-x:auto;gap:.15rem;',
    tests: [BROWSER],
  },
];
