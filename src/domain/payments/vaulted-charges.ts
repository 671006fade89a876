import {
  askForVaultedCharge,
  retryVaultedCharge,
  vaultedAnswer,
  type VaultedAsking,
  type VaultedChargeResult,
} from './asking-for-a-vaulted-charge.ts';
import { vaultedChargeBooking } from './booking-a-vaulted-charge.ts';
import type { ChargeProtocol } from './charge-protocol.ts';
import type { Clock } from '../clock.ts';
import type { PaymentGateway } from './gateway.ts';
import { randomToken } from '../ids.ts';
import type { Environment, Scope, SellerOfRecord } from '../model.ts';
import { parsePriceList, type ExchangeRates, type PlatformFee } from '../money/index.ts';
import { planVaultedCharge } from './planning-a-vaulted-charge.ts';
import type { Store } from '../ports.ts';
import type { UsSalesTaxTable } from '../tax/index.ts';

// The vaulted charge's answer, where callers have always found it.
export type { VaultedChargeResult } from './asking-for-a-vaulted-charge.ts';

/**
 * Charges a stored payment method on the vendor's demand. The attempt is recorded before the
 * gateway is called, under a key derived from the request's Idempotency-Key, so a retried request
 * can never become a second charge. A decline is an answer (status FAILED), not an error.
 */
export interface VaultedChargeDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  rates: ExchangeRates;
  /** The platform's fee unless the vendor has one of its own (PLATFORM_FEE). */
  platformFee: PlatformFee;
  protocol: ChargeProtocol;
  /** The ZIP-level US sales tax table, when one was imported. */
  usSalesTax?: UsSalesTaxTable | undefined;
  /** Who sells: a charge in production needs the seller's whole identity. */
  sellerOfRecord: SellerOfRecord;
}

export function vaultedChargeService(deps: VaultedChargeDeps) {
  const booking = vaultedChargeBooking(deps);
  const asking: VaultedAsking = { protocol: deps.protocol, booking };
  return {
    /** How a settled vaulted charge is written, for the reconciler. */
    booking,

    async charge(
      scope: Scope,
      id: string,
      input: { prices: unknown; chargeDescription?: string | undefined },
      idempotencyKey?: string,
    ): Promise<VaultedChargeResult> {
      const prices = parsePriceList(input.prices);
      // Real time, as every attempt's (docs/decisions.md §10a): the reconciler's grace and its day before UNRESOLVED are counted in it.
      const now = deps.clock.now();
      // The key comes from the client's Idempotency-Key; without one, each request is a charge of its own.
      const firstKey = `vaulted:${scope.vendorId}:${scope.environment}:${id}:${idempotencyKey ?? randomToken(16)}`;
      const { chargeDescription } = input;
      const prepared = await planVaultedCharge(deps, { scope, id, prices, chargeDescription, firstKey, now });
      const { existing, quote } = prepared;
      // The same key again: the same charge, never a second one.
      if (existing) return retryVaultedCharge(asking, existing, quote);
      const { settled, outcome } = await askForVaultedCharge(asking, prepared.attempt!, false);
      return vaultedAnswer(settled, quote, outcome);
    },
  };
}

export type VaultedChargeService = ReturnType<typeof vaultedChargeService>;
