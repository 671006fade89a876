import { sql } from 'kysely';
import type { Repositories } from '../domain/ports.ts';
import type { DialectName, Executor, ReadRows } from './database.ts';
import type { Scope } from '../domain/model.ts';
import { precompiled } from './precompiled.ts';
import { whereScope } from './scope.ts';
import { toTransaction } from './transaction-rows.ts';

/**
 * The changed-transactions feed lives on the transaction row: feed_pending says it is in the feed,
 * change_version counts its changes, listed_version is the version the vendor last saw in a list.
 * Marking processed clears the row only if nothing changed since that list, so a change that races
 * with list-then-mark is never lost (docs/decisions.md, section 6, "Changed-transactions").
 */
export function feedStore(db: Executor, dialect: DialectName, reads: ReadRows | undefined): Repositories['feed'] {
  // Compiled once and run on the reading connection, as the reads by id and e-mail are (precompiled.ts).
  // Through Kysely's pool path a page of 1,000 rows kept about 17 MB alive across every scavenge under
  // the bench's feed load, against 0.3 MB this way: PostgreSQL's peak resident size went from 1.65
  // times the lean server's to 1.11-1.17 (issue 38). Why Kysely's path kept the rows is not known yet.
  const page = precompiled(
    db,
    3,
    (vendorId: string, environment: Scope['environment'], limit: number) =>
      db
        .selectFrom('transactions')
        .selectAll()
        .$call(whereScope({ vendorId, environment }))
        // A literal, not a bound value: a plan prepared once (PostgreSQL's named statements) may then
        // use the feed's partial index, whose predicate it must match.
        .where('feed_pending', '=', sql.lit(1))
        .orderBy('changed_at')
        .orderBy('id')
        .limit(limit),
    { runOn: reads, shareAs: `${dialect}:feed.page` },
  );
  return {
    async list(scope, limit) {
      const rows = await page(scope.vendorId, scope.environment, limit + 1);
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
