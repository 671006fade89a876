export * from './catalog.ts';
export * from './coupons.ts';
export * from './licences.ts';
export * from './price-text.ts';
export * from './seller-details.ts';
export * from './seats.ts';
