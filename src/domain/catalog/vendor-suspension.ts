import { invalidInput } from '../errors.ts';
import type { Vendor, VendorSuspension } from '../model.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { requireVendor } from './vendors.ts';

/** What the operator may say when suspending: renewals stopped or going on, and why (undefined leaves each as it is). */
export interface SuspendRequest {
  /** True: no renewal is charged until the vendor is resumed; false: they go on. A new suspension lets them go on. */
  stopRenewals?: boolean | undefined;
  /** Why, for the operator's own records and the vendor's panel; '' or null clears it. */
  reason?: string | null | undefined;
}

export const SUSPENSION_REASON_MAX = 500;

function reasonOf(reason: string | null | undefined, before: string | null): string | null {
  if (reason === undefined) return before;
  if (reason !== null && typeof reason !== 'string') throw invalidInput('The reason must be text.');
  if (reason === null || reason.trim() === '') return null;
  const text = reason.trim().replace(/\s+/g, ' ');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) throw invalidInput('The reason cannot contain control characters.');
  if ([...text].length > SUSPENSION_REASON_MAX)
    throw invalidInput(`The reason can have at most ${SUSPENSION_REASON_MAX} characters.`);
  return text;
}

/**
 * The operator suspends a vendor (docs/decisions.md §24): its checkout refuses new purchases and
 * charges of stored cards in both environments; reads, refunds and cancellations go on. Safe to repeat:
 * a vendor suspended already keeps the date it was suspended, and gets what this request says.
 * `changed` is false when nothing changed.
 */
export async function suspendVendor(
  deps: CatalogDeps,
  vendorId: string,
  request: SuspendRequest = {},
): Promise<{ vendor: Vendor; changed: boolean }> {
  const vendor = await requireVendor(deps, vendorId);
  const before = vendor.suspension;
  const suspension: VendorSuspension = {
    since: before?.since ?? deps.clock.now().toISOString(),
    reason: reasonOf(request.reason, before?.reason ?? null),
    renewalsStopped: request.stopRenewals ?? before?.renewalsStopped ?? false,
  };
  if (before && before.reason === suspension.reason && before.renewalsStopped === suspension.renewalsStopped)
    return { vendor, changed: false };
  // Renewals going on again: those that fell due while stopped are moved on first (so a crash between leaves them stopped).
  if (before?.renewalsStopped && !suspension.renewalsStopped) await deps.skipStoppedRenewals?.(vendorId);
  await deps.store.vendors.updateSettings(vendorId, { suspension });
  return { vendor: { ...vendor, suspension }, changed: true };
}

/**
 * The operator resumes a suspended vendor: its checkout takes purchases again, and renewals the
 * operator had stopped go on, each that fell due meanwhile charged once, for the period of now.
 * Safe to repeat: `changed` is false when the vendor was not suspended.
 */
export async function resumeVendor(deps: CatalogDeps, vendorId: string): Promise<{ vendor: Vendor; changed: boolean }> {
  const vendor = await requireVendor(deps, vendorId);
  if (!vendor.suspension) return { vendor, changed: false };
  if (vendor.suspension.renewalsStopped) await deps.skipStoppedRenewals?.(vendorId);
  await deps.store.vendors.updateSettings(vendorId, { suspension: null });
  return { vendor: { ...vendor, suspension: null }, changed: true };
}
