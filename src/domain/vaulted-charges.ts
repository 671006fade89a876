import type { Clock } from './clock.ts';
import { AppError, invalidState, notFound } from './errors.ts';
import type { ExchangeRates } from './exchange-rates.ts';
import type { PaymentGateway } from './gateway.ts';
import { pendingAttempt } from './charge-attempts.ts';
import { randomToken } from './ids.ts';
import { paymentEntry } from './ledger.ts';
import type { Environment, Scope } from './model.ts';
import type { Store } from './ports.ts';
import { quotePrice, type PriceQuote } from './pricing.ts';
import { parsePriceList } from './validation.ts';

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
}

export interface VaultedChargeResult {
  status: 'SUCCESS' | 'FAILED';
  deactivation: boolean;
  quote: PriceQuote;
  message: string | null;
}

export function vaultedChargeService(deps: VaultedChargeDeps) {
  return {
    async charge(
      scope: Scope,
      id: string,
      input: { prices: unknown; chargeDescription?: string | undefined },
      idempotencyKey?: string,
    ): Promise<VaultedChargeResult> {
      const prices = parsePriceList(input.prices);
      const now = deps.clock.now(scope);
      const attemptKey = `vaulted:${scope.vendorId}:${scope.environment}:${id}:${idempotencyKey ?? randomToken(16)}`;

      const prepared = await deps.store.transaction(async (repos) => {
        const transaction = await repos.transactions.lock(scope, id);
        if (!transaction) throw notFound(`Transaction ${id}`);
        if (transaction.type !== 'VAULTED') throw invalidState(`Transaction ${id} is ${transaction.type}, not a vaulted payment method.`);
        if (transaction.status !== 'VAULTED_STATUS_ACTIVE')
          throw invalidState(`The vaulted payment method ${id} is ${transaction.status} and cannot be charged.`);
        const method = transaction.paymentMethodId ? await repos.paymentMethods.find(transaction.paymentMethodId) : undefined;
        if (!method) throw invalidState(`Transaction ${id} has no stored payment method.`);
        const quote = quotePrice({
          prices,
          currency: transaction.currency,
          country: transaction.country,
          region: transaction.region,
          allowConversion: true,
          rates: deps.rates,
        });
        const existing = await repos.chargeAttempts.findByKey(attemptKey);
        if (existing?.status === 'SUCCEEDED' || existing?.status === 'DECLINED') return { settled: existing, quote } as const;
        const attempt = existing ?? pendingAttempt({ scope, key: attemptKey, transactionId: id, amountMinor: quote.totalMinor, currency: quote.currency, now });
        if (!existing) await repos.chargeAttempts.insert(attempt);
        return { settled: undefined, transaction, token: method.token, quote, attemptId: attempt.id } as const;
      });
      // The same key was charged before (its answer no longer replayable): repeat its outcome, never the charge.
      if (prepared.settled) {
        if (prepared.settled.amountMinor !== prepared.quote.totalMinor || prepared.settled.currency !== prepared.quote.currency) {
          throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used for a charge of another amount; use a new key for a new charge.');
        }
        const succeeded = prepared.settled.status === 'SUCCEEDED';
        return {
          status: succeeded ? 'SUCCESS' : 'FAILED',
          deactivation: false,
          quote: prepared.quote,
          message: succeeded ? null : `This charge was declined before (${prepared.settled.failureCode}).`,
        };
      }

      const gateway = deps.gateways[scope.environment];
      const result = await gateway.charge({
        attemptId: prepared.attemptId,
        token: prepared.token,
        amountMinor: prepared.quote.totalMinor,
        currency: prepared.quote.currency,
      });
      const at = deps.clock.now(scope);

      return deps.store.transaction(async (repos) => {
        if (result.status === 'SUCCEEDED') {
          await repos.chargeAttempts.settle(prepared.attemptId, {
            status: 'SUCCEEDED',
            gatewayReference: result.reference,
            failureCode: null,
            updatedAt: at.toISOString(),
          });
          await repos.entries.insert(
            paymentEntry({
              type: 'VAULTED_PAYMENT',
              transaction: prepared.transaction,
              currency: prepared.quote.currency,
              netMinor: prepared.quote.netMinor,
              taxMinor: prepared.quote.taxMinor,
              taxRate: prepared.quote.taxRate,
              feeMinor: result.feeMinor,
              gatewayReference: result.reference,
              provider: gateway.provider,
              at,
              description: input.chargeDescription ?? null,
            }),
          );
          await repos.transactions.update(scope, id, { lastCharge: at.toISOString() });
          return { status: 'SUCCESS', deactivation: false, quote: prepared.quote, message: null };
        }
        if (result.status === 'UNKNOWN') {
          await repos.chargeAttempts.settle(prepared.attemptId, { status: 'UNKNOWN', gatewayReference: null, failureCode: null, updatedAt: at.toISOString() });
          return { status: 'FAILED', deactivation: false, quote: prepared.quote, message: 'The payment provider did not answer; the charge is being checked.' };
        }
        await repos.chargeAttempts.settle(prepared.attemptId, {
          status: 'DECLINED',
          gatewayReference: null,
          failureCode: result.code,
          updatedAt: at.toISOString(),
        });
        if (result.permanent) {
          await repos.transactions.update(
            scope,
            id,
            { status: 'VAULTED_STATUS_INACTIVE' },
            { flag: 'CHANGED_STATUS_VAULTED_DEACTIVATION', at: at.toISOString() },
          );
        }
        return { status: 'FAILED', deactivation: result.permanent, quote: prepared.quote, message: result.message };
      });
    },
  };
}

export type VaultedChargeService = ReturnType<typeof vaultedChargeService>;
