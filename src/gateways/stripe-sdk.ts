import { createRequire } from 'node:module';
import type Stripe from 'stripe';

/**
 * Stripe's SDK, loaded when the first Stripe gateway is made: it is 218 modules, and a CLI command, a
 * sandbox-only server or a test process that never takes a real payment has no use for them.
 */
const require = createRequire(import.meta.url);
let sdk: typeof Stripe | undefined;

export const stripeSdk = (): typeof Stripe => (sdk ??= require('stripe') as typeof Stripe);
