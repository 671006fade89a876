import { emailSettings, type EmailSettingsInput } from '../notifications/index.ts';
import { notFound } from '../errors.ts';
import type { Vendor } from '../model.ts';
import { requireOrigin } from '../validation.ts';
import type { CatalogDeps } from './catalog-deps.ts';
import { sellerSettings, type SellerDetailsInput } from './seller-details.ts';

/** What a vendor can change of itself: conversion, the admin frame's origins, seller details and e-mail settings. */
export type VendorSettingsInput = Partial<Pick<Vendor, 'allowConversion' | 'adminFrameOrigins'>> &
  SellerDetailsInput & { emails?: EmailSettingsInput };

/**
 * Changes the settings given (undefined leaves one as it is). The seller details are checked
 * (e-mail, country code, lengths, logo PNG/JPEG of at most 100 KB); '' or null clears one.
 */
export async function updateVendorSettings(
  deps: CatalogDeps,
  vendorId: string,
  settings: VendorSettingsInput,
): Promise<Vendor> {
  const origins = settings.adminFrameOrigins?.map(requireOrigin);
  const checked = {
    ...(settings.allowConversion !== undefined ? { allowConversion: settings.allowConversion } : {}),
    ...(origins ? { adminFrameOrigins: [...new Set(origins)] } : {}),
    ...sellerSettings(settings),
    ...(settings.emails ? { emails: emailSettings(settings.emails) } : {}),
  };
  if (Object.keys(checked).length > 0 && !(await deps.store.vendors.updateSettings(vendorId, checked)))
    throw notFound(`Vendor ${vendorId}`);
  const vendor = await deps.store.vendors.find(vendorId);
  if (!vendor) throw notFound(`Vendor ${vendorId}`);
  return vendor;
}
