export * from './catalog.ts';
export * from './coupons.ts';
export * from './licences.ts';
export { newLicenceKey } from './licence-keys.ts';
export { licenceManagement, type ManagedLicence } from './licence-management.ts';
export { INSTANCE_NAME_MAX } from './licence-activations.ts';
export * from './price-text.ts';
export * from './seller-details.ts';
export * from './seats.ts';
