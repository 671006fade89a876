/**
 * Test logins hash at scrypt's least cost (2^10, about 2 ms against 100 at the default 2^15), as Django's
 * and Rails' test settings do: the suite makes hundreds of them. The default is tested in password-hashing.test.ts.
 */
export const TEST_PASSWORD_HASH_COST = '10';
