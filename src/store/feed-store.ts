import { sql } from 'kysely';
import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';
import { whereScope } from './scope.ts';
import { toTransaction } from './transaction-rows.ts';

/**
 * The changed-transactions feed lives on the transaction row: feed_pending says it is in the feed,
 * change_version counts its changes, listed_version is the version the vendor last saw in a list.
 * Marking processed clears the row only if nothing changed since that list, so a change that races
 * with list-then-mark is never lost (docs/decisions.md, section 6, "Changed-transactions").
 */
export function feedStore(db: Executor): Repositories['feed'] {
  return {
    async list(scope, limit) {
      const rows = await db
        .selectFrom('transactions')
        .selectAll()
        .$call(whereScope(scope))
        // A literal, not a bound value: a plan prepared once (PostgreSQL's named statements) may then
        // use the feed's partial index, whose predicate it must match.
        .where('feed_pending', '=', sql.lit(1))
        .orderBy('changed_at')
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const shown = rows.slice(0, limit);
      // Records the version each row had when shown, grouped so a big page costs few statements.
      // The change_version guard skips a row that changed after the select: that change stays unseen.
      const idsByVersion = new Map<number, string[]>();
      for (const row of shown) {
        if (row.listed_version === row.change_version) continue;
        const ids = idsByVersion.get(row.change_version) ?? [];
        ids.push(row.id);
        idsByVersion.set(row.change_version, ids);
      }
      for (const [version, ids] of idsByVersion) {
        for (let i = 0; i < ids.length; i += 500) {
          await db
            .updateTable('transactions')
            .set({ listed_version: version })
            .where('id', 'in', ids.slice(i, i + 500))
            .where('change_version', '=', version)
            .execute();
        }
      }
      return { transactions: shown.map(toTransaction), more: rows.length > limit };
    },
    async markProcessed(scope, id) {
      const owned = await db
        .selectFrom('transactions')
        .select('id')
        .where('id', '=', id)
        .$call(whereScope(scope))
        .executeTakeFirst();
      if (!owned) return false;
      await db
        .updateTable('transactions')
        .set({ feed_pending: 0 })
        .where('id', '=', id)
        .where('feed_pending', '=', 1)
        .where(sql.ref('listed_version'), '=', sql.ref('change_version'))
        .execute();
      return true;
    },
  };
}
