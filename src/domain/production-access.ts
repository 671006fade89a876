import { AppError } from './errors.ts';
import type { Environment, Vendor } from './model.ts';

/**
 * Who reaches production (docs/decisions.md §19, "Who may sign up"). A vendor the operator made (with
 * the CLI, the demo, or an invitation) does. One that signed up in an open panel works in the sandbox
 * only until the operator runs `opentill vendor enable-production`: a stranger must not take real
 * money into the operator's processor account. Every way into production asks this one rule: API
 * authentication and issuing credentials, the panel, the admin tool and the hosted checkout.
 */
export function reaches(vendor: Pick<Vendor, 'productionEnabled'>, environment: Environment): boolean {
  return environment === 'sandbox' || vendor.productionEnabled;
}

/** What a vendor that does not reach production is told, and what to ask the operator. */
export const productionNotEnabled = (vendorId: string) =>
  new AppError(
    'FORBIDDEN',
    `Production is not enabled for vendor ${vendorId}: an account made by signing up works in the sandbox until the operator of this server enables production for it (opentill vendor enable-production --vendor ${vendorId}).`,
  );
