import type { Repositories } from '../domain/ports.ts';
import type { Executor } from './database.ts';

/** A panel user as the domain has it: its login is the e-mail, kept lowercased. */
function toUser(row: {
  id: string;
  vendor_id: string;
  email_lower: string;
  password_hash: string;
  created_at: string;
}) {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    email: row.email_lower,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
  };
}

/** Panel users and their sessions. */
export function panelStore(db: Executor): Repositories['panel'] {
  return {
    async insertUser(user) {
      await db
        .insertInto('panel_users')
        .values({
          id: user.id,
          vendor_id: user.vendorId,
          email_lower: user.email.toLowerCase(),
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .execute();
    },
    async findUserByEmail(email) {
      const row = await db
        .selectFrom('panel_users')
        .selectAll()
        .where('email_lower', '=', email.toLowerCase())
        .executeTakeFirst();
      return row && toUser(row);
    },
    async findUserByVendor(vendorId) {
      const row = await db
        .selectFrom('panel_users')
        .selectAll()
        .where('vendor_id', '=', vendorId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && toUser(row);
    },
    async updatePassword(userId, passwordHash) {
      await db.updateTable('panel_users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    },
    async insertSession(s) {
      await db
        .insertInto('panel_sessions')
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
        .selectFrom('panel_sessions')
        .innerJoin('panel_users', 'panel_users.id', 'panel_sessions.user_id')
        .select([
          'panel_users.id',
          'panel_users.vendor_id',
          'panel_users.email_lower',
          'panel_users.password_hash',
          'panel_users.created_at',
          'panel_sessions.csrf_token',
          'panel_sessions.expires_at',
        ])
        .where('panel_sessions.id_hash', '=', idHash)
        .where('panel_sessions.expires_at', '>', now)
        .executeTakeFirst();
      return row && { user: toUser(row), csrfToken: row.csrf_token, expiresAt: row.expires_at };
    },
    async deleteSession(idHash) {
      await db.deleteFrom('panel_sessions').where('id_hash', '=', idHash).execute();
    },
  };
}

/**
 * One-time flashes of panel sessions. Taking is one DELETE … RETURNING, atomic on both stores: of two
 * takes at once, one deletes the row and gets it, the other finds nothing.
 */
export function panelFlashesStore(db: Executor): Repositories['panelFlashes'] {
  return {
    async put(flash, now) {
      await db.deleteFrom('panel_flashes').where('expires_at', '<=', now).execute();
      await db
        .insertInto('panel_flashes')
        .values({ session_hash: flash.sessionHash, sealed: flash.sealed, expires_at: flash.expiresAt })
        .onConflict((oc) =>
          oc.column('session_hash').doUpdateSet({ sealed: flash.sealed, expires_at: flash.expiresAt }),
        )
        .execute();
    },
    async take(sessionHash, now) {
      const row = await db
        .deleteFrom('panel_flashes')
        .where('session_hash', '=', sessionHash)
        .returning(['sealed', 'expires_at'])
        .executeTakeFirst();
      return row && row.expires_at > now ? row.sealed : undefined;
    },
  };
}
