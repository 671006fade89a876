import type { Environment, Scope, Vendor, VendorSettings } from '../model.ts';

// Vendors, their API credentials, panel logins and sessions, and admin tool sessions.

export interface PanelUser {
  id: string;
  vendorId: string;
  email: string;
  passwordHash: string;
  createdAt: string;
}

/** A signed-in browser as the store keeps it: only the hash of its cookie, and its anti-forgery token for forms. */
export interface StoredPanelSession {
  idHash: string;
  userId: string;
  csrfToken: string;
  expiresAt: string;
  createdAt: string;
}

/** A flash as the store keeps it: sealed, under the hash of the session's cookie. */
export interface StoredFlash {
  sessionHash: string;
  sealed: string;
  expiresAt: string;
}

/** An admin tool session as the store keeps it: the SHA-256 of its token, never the token. */
export interface StoredAdminSession {
  idHash: string;
  vendorId: string;
  environment: Environment;
  /** The hash of the panel session that opened it; null when it was opened through a generate-url-to-admin link. */
  openedBy: string | null;
  expiresAt: string;
  revokedAt: string | null;
  createdAt: string;
}

export interface StoredCredential {
  id: string;
  vendorId: string;
  environment: Environment;
  login: string;
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface VendorRepository {
  insert(vendor: Vendor): Promise<void>;
  find(id: string): Promise<Vendor | undefined>;
  list(): Promise<Vendor[]>;
  updateSettings(id: string, settings: VendorSettings): Promise<boolean>;
}

export interface CredentialRepository {
  insert(credential: StoredCredential): Promise<void>;
  findByLogin(login: string): Promise<StoredCredential | undefined>;
  listForVendor(vendorId: string): Promise<StoredCredential[]>;
  revoke(scope: Scope, id: string, at: string): Promise<boolean>;
}

export interface PanelRepository {
  insertUser(user: PanelUser): Promise<void>;
  findUserByEmail(email: string): Promise<PanelUser | undefined>;
  /** The vendor's first panel login, if it has one. */
  findUserByVendor(vendorId: string): Promise<PanelUser | undefined>;
  updatePassword(userId: string, passwordHash: string): Promise<void>;
  insertSession(session: StoredPanelSession): Promise<void>;
  /** The live session with this hash and its user, or undefined. */
  findSession(
    idHash: string,
    now: string,
  ): Promise<(Pick<StoredPanelSession, 'csrfToken' | 'expiresAt'> & { user: PanelUser }) | undefined>;
  deleteSession(idHash: string): Promise<void>;
}

export interface PanelFlashRepository {
  /** Keeps the session's flash (replacing one not yet taken) and deletes every flash expired by `now`. */
  put(flash: StoredFlash, now: string): Promise<void>;
  /** Deletes the session's flash and answers it if it was still live at `now`: of two takes at once, one gets it. */
  take(sessionHash: string, now: string): Promise<string | undefined>;
}

export interface AdminSessionRepository {
  insert(session: StoredAdminSession): Promise<void>;
  /** The session, and whether the panel session that opened it (if any) is still signed in. */
  find(idHash: string): Promise<(StoredAdminSession & { openerSignedIn: boolean }) | undefined>;
  /** Ends the live sessions a panel session opened (its sign-out); answers how many. */
  revokeOpenedBy(panelSessionHash: string, at: string): Promise<number>;
  /** Ends every live session of the vendor in this environment; answers how many. */
  revokeAll(scope: Scope, at: string): Promise<number>;
  /** Forgets the vendor's sessions that expired by `before`. */
  deleteExpired(scope: Scope, before: string): Promise<void>;
}

/** A login to the operator's console: the one who runs this server, never a vendor's user. */
export interface OperatorUser {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: string;
}

export interface OperatorRepository {
  /** False when the e-mail has a login already (the unique e-mail refused it). */
  insertUser(user: OperatorUser): Promise<boolean>;
  findUserByEmail(email: string): Promise<OperatorUser | undefined>;
  listUsers(): Promise<OperatorUser[]>;
  /** Sets the password and ends every session of that login; false when there is none. */
  resetPassword(userId: string, passwordHash: string): Promise<boolean>;
  insertSession(session: StoredPanelSession): Promise<void>;
  /** The live session with this hash and its user, or undefined. */
  findSession(
    idHash: string,
    now: string,
  ): Promise<(Pick<StoredPanelSession, 'csrfToken' | 'expiresAt'> & { user: OperatorUser }) | undefined>;
  /** Ends this session, and forgets every session expired by `now`. */
  deleteSession(idHash: string, now: string): Promise<void>;
}
