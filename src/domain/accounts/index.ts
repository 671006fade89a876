export * from './credentials.ts';
export * from './panel-accounts.ts';
export * from './panel-flashes.ts';
export * from './panel-invites.ts';
export * from './operator-accounts.ts';
export { passwordHasher, PASSWORD_COSTS, type PasswordHasher } from './panel-secrets.ts';
