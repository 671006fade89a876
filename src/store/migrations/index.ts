import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001-initial.ts';
import * as idempotencyPurgeIndex from './0002-idempotency-purge-index.ts';
import * as coupons from './0003-coupons.ts';
import * as vendorConversionSetting from './0004-vendor-conversion-setting.ts';
import * as billing from './0005-billing.ts';
import * as invoiceNumbers from './0006-invoice-numbers.ts';
import * as adminTool from './0007-admin-tool.ts';
import * as panelAccounts from './0008-panel-accounts.ts';
import * as adminSessions from './0009-admin-sessions.ts';
import * as chargeProtocol from './0010-charge-protocol.ts';
import * as processorEvents from './0011-processor-events.ts';
import * as businessBuyers from './0012-business-buyers.ts';
import * as sellerDetails from './0013-seller-details.ts';
import * as buyerPostalCode from './0014-buyer-postal-code.ts';
import * as buyerAddress from './0015-buyer-address.ts';
import * as cancelledAt from './0016-cancelled-at.ts';
import * as panelFlashes from './0017-panel-flashes.ts';
import * as customerEmails from './0018-customer-emails.ts';
import * as partialReversals from './0019-partial-reversals.ts';
import * as productionEnabled from './0020-production-enabled.ts';
import * as platformFee from './0021-platform-fee.ts';
import * as payoutStatements from './0022-payout-statements.ts';
import * as vendorSuspension from './0023-vendor-suspension.ts';
import * as operatorAccounts from './0024-operator-accounts.ts';
import * as payoutRanges from './0025-payout-ranges.ts';
import * as webhooks from './0026-webhooks.ts';
import * as productArchive from './0028-product-archive.ts';
import * as buyerLocale from './0029-buyer-locale.ts';
import * as customerPortal from './0030-customer-portal.ts';
import * as paymentMethodTypes from './0031-payment-method-types.ts';
import * as issuedInvoiceBuyers from './0032-issued-invoice-buyers.ts';
import * as lastingCoupons from './0033-lasting-coupons.ts';
import * as seats from './0034-seats.ts';
import * as licenceActivations from './0035-licence-activations.ts';
import * as pause from './0036-pause.ts';
import * as productImages from './0037-product-images.ts';
import * as customerSeats from './0038-customer-seats.ts';

/** Append-only: a new migration gets the next number and a line here; none is ever edited. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-idempotency-purge-index': idempotencyPurgeIndex,
  '0003-coupons': coupons,
  '0004-vendor-conversion-setting': vendorConversionSetting,
  '0005-billing': billing,
  '0006-invoice-numbers': invoiceNumbers,
  '0007-admin-tool': adminTool,
  '0008-panel-accounts': panelAccounts,
  '0009-admin-sessions': adminSessions,
  '0010-charge-protocol': chargeProtocol,
  '0011-processor-events': processorEvents,
  '0012-business-buyers': businessBuyers,
  '0013-seller-details': sellerDetails,
  '0014-buyer-postal-code': buyerPostalCode,
  '0015-buyer-address': buyerAddress,
  '0016-cancelled-at': cancelledAt,
  '0017-panel-flashes': panelFlashes,
  '0018-customer-emails': customerEmails,
  '0019-partial-reversals': partialReversals,
  '0020-production-enabled': productionEnabled,
  '0021-platform-fee': platformFee,
  '0022-payout-statements': payoutStatements,
  '0023-vendor-suspension': vendorSuspension,
  '0024-operator-accounts': operatorAccounts,
  '0025-payout-ranges': payoutRanges,
  '0026-webhooks': webhooks,
  '0028-product-archive': productArchive,
  '0029-buyer-locale': buyerLocale,
  '0030-customer-portal': customerPortal,
  '0031-payment-method-types': paymentMethodTypes,
  '0032-issued-invoice-buyers': issuedInvoiceBuyers,
  '0033-lasting-coupons': lastingCoupons,
  '0034-seats': seats,
  '0035-licence-activations': licenceActivations,
  '0036-pause': pause,
  '0037-product-images': productImages,
  '0038-customer-seats': customerSeats,
};

/** Every migration this version knows, by name. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
