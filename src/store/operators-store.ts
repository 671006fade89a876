import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';

const toUser = (row: { id: string; email_lower: string; password_hash: string; created_at: string }) => ({
  id: row.id,
  email: row.email_lower,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
});

/** The operator's console logins and their sessions (docs/decisions.md §26). */
export function operatorsStore(db: Executor): Repositories['operators'] {
  return {
    async insertUser(user) {
      const row = await db
        .insertInto('operator_users')
        .values({
          id: user.id,
          email_lower: user.email.toLowerCase(),
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .onConflict((oc) => oc.column('email_lower').doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
    async findUserByEmail(email) {
      const row = await db
        .selectFrom('operator_users')
        .selectAll()
        .where('email_lower', '=', email.toLowerCase())
        .executeTakeFirst();
      return row && toUser(row);
    },
    async listUsers() {
      return (await db.selectFrom('operator_users').selectAll().orderBy('created_at').orderBy('id').execute()).map(
        toUser,
      );
    },
    async resetPassword(userId, passwordHash) {
      const updated = await db
        .updateTable('operator_users')
        .set({ password_hash: passwordHash })
        .where('id', '=', userId)
        .executeTakeFirst();
      await db.deleteFrom('operator_sessions').where('user_id', '=', userId).execute();
      return updated.numUpdatedRows > 0n;
    },
    async insertSession(s) {
      await db
        .insertInto('operator_sessions')
        .values({
          id_hash: s.idHash,
          user_id: s.userId,
          csrf_token: s.csrfToken,
          expires_at: s.expiresAt,
          created_at: s.createdAt,
        })
        .execute();
    },
    async findSession(idHash, now) {
      const row = await db
        .selectFrom('operator_sessions')
        .innerJoin('operator_users', 'operator_users.id', 'operator_sessions.user_id')
        .select([
          'operator_users.id',
          'operator_users.email_lower',
          'operator_users.password_hash',
          'operator_users.created_at',
          'operator_sessions.csrf_token',
          'operator_sessions.expires_at',
        ])
        .where('operator_sessions.id_hash', '=', idHash)
        .where('operator_sessions.expires_at', '>', now)
        .executeTakeFirst();
      return row && { user: toUser(row), csrfToken: row.csrf_token, expiresAt: row.expires_at };
    },
    async deleteSession(idHash, now) {
      await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('id_hash', '=', idHash), eb('expires_at', '<=', now)]))
        .execute();
    },
  };
}
