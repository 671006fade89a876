// A purchase's key is made as a reissued one is (src/domain/catalog/licence-keys.ts).
export { newLicenceKey } from '../catalog/index.ts';
