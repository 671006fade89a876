import type { Mutant } from './mutant.ts';

const ACTIVATIONS = 'test/api/licence-activations.test.ts';
const MANAGEMENT = 'test/api/licence-management.test.ts';
const PORTAL = 'test/api/licence-portal.test.ts';
const CHECK = 'test/api/licences.test.ts';
const STORE = 'src/store/licence-activations-store.ts';
const RULES = 'src/domain/catalog/licence-activations.ts';

/** Mutants of licence activations, revocation and reissue (issue 37, docs/decisions.md §40). */
export const licenceMutants: Mutant[] = [
  {
    id: 'licence-limit-one-more',
    file: STORE,
    find: "if (limit !== null) update = update.where('activations_used', '<', limit);",
    replace: "if (limit !== null) update = update.where('activations_used', '<=', limit);",
    tests: [ACTIVATIONS],
  },
  {
    id: 'licence-limit-read-then-write',
    file: STORE,
    find: "if (limit !== null) update = update.where('activations_used', '<', limit);",
    replace:
      "const row = await db.selectFrom('licences').select('activations_used').where('id', '=', licenceId).executeTakeFirstOrThrow();\n      if (limit !== null && Number(row.activations_used) >= limit) return false;",
    tests: [ACTIVATIONS],
  },
  {
    id: 'licence-deactivate-keeps-slot',
    file: STORE,
    find: ".set((eb) => ({ activations_used: eb('activations_used', '-', 1) }))",
    replace: ".set((eb) => ({ activations_used: eb('activations_used', '-', 0) }))",
    tests: [ACTIVATIONS, PORTAL],
  },
  {
    id: 'licence-revoked-still-active',
    file: RULES,
    find: 'return !licence.retired && licence.revokedAt === null && !!transaction',
    replace: 'return !licence.retired && !!transaction',
    tests: [MANAGEMENT],
  },
  {
    id: 'licence-replaced-key-still-active',
    file: RULES,
    find: 'return !licence.retired && licence.revokedAt === null && !!transaction',
    replace: 'return licence.revokedAt === null && !!transaction',
    tests: [MANAGEMENT],
  },
  {
    id: 'licence-refunded-still-active',
    file: RULES,
    find: '!!transaction && PAID_UP.includes(transaction.status)',
    replace: '!!transaction',
    tests: [ACTIVATIONS, CHECK],
  },
  {
    id: 'licence-other-vendors-key',
    file: RULES,
    find: 'if (!licence || (access.scope && !sameScope(access.scope, licence.scope)))',
    replace: 'if (!licence)',
    tests: [ACTIVATIONS],
  },
  {
    id: 'licence-seats-ignored',
    file: 'src/domain/activation-limit.ts',
    find: 'if (product.seats) return transaction.quantity;',
    replace: '',
    tests: [ACTIVATIONS],
  },
  {
    id: 'licence-key-alone-unlimited',
    file: 'src/http/licence-key-access.ts',
    find: 'if (limit.exceeded)',
    replace: 'if (limit.exceeded && false)',
    tests: [ACTIVATIONS],
  },
  {
    id: 'licence-reissue-keeps-instances',
    file: STORE,
    find: "await db.deleteFrom('licence_instances').where('licence_id', '=', licenceId).execute();",
    replace: '',
    tests: [MANAGEMENT],
  },
  {
    id: 'licence-reissue-not-mailed',
    file: 'src/domain/catalog/licence-management.ts',
    find: 'await deps.emails?.record(repos, [',
    replace: 'void deps.emails?.record.bind(null, repos, [',
    tests: [MANAGEMENT],
  },
  {
    id: 'licence-check-hides-used',
    file: 'src/domain/catalog/licences.ts',
    find: 'activations: { used: licence.retired ? 0 : licence.activationsUsed, limit },',
    replace: 'activations: { used: 0, limit },',
    tests: [ACTIVATIONS],
  },
];
