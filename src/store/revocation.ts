import type { Scope } from '../domain/model.ts';
import type { Executor } from './database.ts';
import { whereScope } from './scope.ts';

/**
 * Credentials and coupons are revoked alike: by their owner, once, never restored. True when this
 * call revoked the row; false when the row is another vendor's, unknown, or already revoked.
 */
export async function revokeOwned(
  db: Executor,
  table: 'api_credentials' | 'coupons',
  scope: Scope,
  id: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ revoked_at: at })
    .where('id', '=', id)
    .$call(whereScope(scope))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
