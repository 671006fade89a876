import type { DeleteQueryBuilder, SelectQueryBuilder, UpdateQueryBuilder } from 'kysely';
import type { Scope } from '../domain/model.ts';
import type { Schema } from './schema.ts';

/** Tables whose rows belong to one vendor in one environment. */
type OwnedTable = {
  [T in keyof Schema]: Schema[T] extends { vendor_id: string; environment: string } ? T : never;
}[keyof Schema];

/** The tables a select, update or delete reads from. */
type TablesOf<Q> =
  Q extends SelectQueryBuilder<Schema, infer T, object>
    ? T
    : Q extends UpdateQueryBuilder<Schema, keyof Schema, infer T, object>
      ? T
      : Q extends DeleteQueryBuilder<Schema, infer T, object>
        ? T
        : never;

interface Filterable<Q> {
  where(column: 'vendor_id' | 'environment', op: '=', value: string): Q;
}

/**
 * Keeps a query to one vendor's rows in one environment, the boundary no request may cross. Use it
 * with `$call`: `db.selectFrom('coupons').selectAll().$call(whereScope(scope))`. A table without
 * both columns is a type error.
 */
export function whereScope(scope: Scope) {
  return <Q extends Filterable<Q>>(query: [TablesOf<Q>] extends [OwnedTable] ? Q : never): Q =>
    query.where('vendor_id', '=', scope.vendorId).where('environment', '=', scope.environment);
}
