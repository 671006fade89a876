import type { Mutant } from './mutant.ts';

const SIGN_IN = 'test/api/portal-sign-in.test.ts';
const SELF = 'test/api/portal-self-service.test.ts';
const PANEL = 'test/api/portal-panel-settings.test.ts';

/** Mutants of the customer portal (sign-in by e-mail, billing details, plan switch, cancel with reason) (issue 36, docs/decisions.md §34). */
export const portalMutants: Mutant[] = [
  {
    id: 'portal-sign-in-link-used-twice',
    file: 'src/store/portal-store.ts',
    find: ".where('used_at', 'is', null)",
    replace: '',
    tests: [SIGN_IN],
  },
  {
    id: 'portal-sign-in-expiry-off-by-one',
    file: 'src/store/portal-store.ts',
    find: ".where('expires_at', '>', now)",
    replace: ".where('expires_at', '>=', now)",
    tests: [SIGN_IN],
  },
  {
    id: 'portal-sign-in-mails-a-stranger',
    file: 'src/domain/portal/sign-in.ts',
    find: 'if (!vendor || !bought) return',
    replace: 'if (!vendor) return',
    tests: [SIGN_IN],
  },
  {
    id: 'portal-sign-in-other-environment-uses-it-up',
    file: 'src/domain/portal/sign-in.ts',
    find: 'if (!found || found.scope.environment !== environment) return undefined;\n  const now',
    replace: 'if (!found) return undefined;\n  const now',
    tests: [SIGN_IN],
  },
  {
    id: 'portal-sign-in-limit-per-vendor-not-per-inbox',
    file: 'src/http/pages/manage/manage-sign-in.ts',
    find: 'perEmail(email, request)',
    replace: 'perEmail(`${vendor.id}:${email}`, request)',
    tests: [SIGN_IN],
  },
  {
    id: 'portal-cancel-now-without-vendor-consent',
    file: 'src/domain/portal/cancellation.ts',
    find: 'if (now && !(await deps.store.portal.cancelNow(scope.vendorId)))',
    replace: 'if (now && false)',
    tests: [SELF],
  },
  {
    id: 'portal-billing-reverse-charge-not-repriced',
    file: 'src/domain/portal/billing-details.ts',
    find: '...(reverseCharge !== locked.reverseCharge ? repriced(locked, reverseCharge) : {}),',
    replace: '',
    tests: [SELF],
  },
  {
    id: 'portal-downgrade-starts-now',
    file: 'src/domain/portal/plan-switch.ts',
    find: 'atPeriodEnd: !option.upgrade',
    replace: 'atPeriodEnd: false',
    tests: [SELF],
  },
  {
    id: 'portal-switch-to-any-product',
    file: 'src/domain/portal/customer-portal.ts',
    find: "if (product?.type === 'SUBSCRIPTION') own.push(product.id);",
    replace: 'if (product) own.push(product.id);',
    tests: [PANEL],
  },
  {
    id: 'portal-invoice-rewritten-by-edit',
    file: 'src/domain/portal/billing-details.ts',
    find: '    await repos.portal.keepIssuedBuyers(id, {',
    replace: '    if (locked.buyerName === "never") await repos.portal.keepIssuedBuyers(id, {',
    tests: ['test/api/portal-self-service.test.ts'],
  },
  {
    id: 'portal-invoice-ignores-issued-buyer',
    file: 'src/domain/reports/invoices.ts',
    find: '(await deps.store.portal.issuedBuyer(entry.id)) ?? transaction;',
    replace: 'transaction;',
    tests: ['test/api/portal-self-service.test.ts'],
  },
  {
    id: 'portal-issued-buyer-kept-after-edit',
    file: 'src/domain/portal/billing-details.ts',
    find: '      buyerName: locked.buyerName,',
    replace: '      buyerName: patch.buyerName ?? null,',
    tests: ['test/api/portal-self-service.test.ts'],
  },
];
