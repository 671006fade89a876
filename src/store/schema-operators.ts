// The operator's tables of the schema (src/store/schema.ts), kept apart so that file stays readable.

/** A login to the operator's console (docs/decisions.md §26). */
export interface OperatorUsersTable {
  id: string;
  email_lower: string;
  password_hash: string;
  created_at: string;
}

/** A signed-in operator: the SHA-256 of its cookie, never the cookie. */
export interface OperatorSessionsTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  expires_at: string;
  created_at: string;
}
