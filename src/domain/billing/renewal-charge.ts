import type { BillingContext } from './billing-context.ts';
import type { Claimed } from './renewal-claim.ts';
import type { ChargePlan, Plan } from './renewal-plan.ts';
import type { Charged } from './renewal-write.ts';
import { askGateway, type ChargeResult } from '../payments/index.ts';
import type { ChargeAttempt } from '../ports.ts';

/** Asks the gateway about every attempt, a few at a time; a thrown error is an unknown outcome. */
async function charge(
  ctx: BillingContext,
  plans: ChargePlan[],
  attempts: Map<string, ChargeAttempt>,
): Promise<Map<string, ChargeResult>> {
  const { deps, gatewayTimeoutMs } = ctx;
  const results = new Map<string, ChargeResult>();
  let next = 0;
  const lane = async () => {
    while (next < plans.length) {
      const p = plans[next++]!;
      const attempt = attempts.get(p.key)!;
      const gateway = deps.gateways[p.due.transaction.environment];
      if (p.heldPayment) {
        // The payment held for authentication can no longer be completed once this try charges; if the
        // customer completed it first, it is this period's payment and nothing is charged again.
        const held = await askGateway(() => gateway.cancelPending(p.heldPayment!), gatewayTimeoutMs);
        if (held.status === 'SUCCEEDED' || held.status === 'UNKNOWN') {
          results.set(p.key, held);
          continue;
        }
      }
      const result = await askGateway(
        () =>
          gateway.charge({
            attemptId: attempt.id,
            token: p.due.token!,
            amountMinor: attempt.amountMinor,
            currency: attempt.currency,
            recordedAt: attempt.createdAt,
          }),
        gatewayTimeoutMs,
      );
      results.set(p.key, result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.concurrency, plans.length) }, lane));
  return results;
}

/** Asks the gateway about a claimed batch's charges, outside any database transaction. */
export async function ask(ctx: BillingContext, claimed: Claimed): Promise<Charged> {
  const { toAsk, attempts } = claimed;
  const plans: Plan[] = [...toAsk];
  // An attempt recorded before a crash keeps its amount; a price changed since is held, not guessed.
  const charged = toAsk.filter((p) => {
    const a = attempts.get(p.key)!;
    if (a.amountMinor === p.quote.totalMinor && a.currency === p.quote.currency) return true;
    plans[plans.indexOf(p)] = {
      kind: 'hold',
      due: p.due,
      at: p.at,
      reason: `${p.due.transaction.id}: the price changed while a charge of it was in flight`,
    };
    return false;
  });
  return { plans, attempts, results: await charge(ctx, charged, attempts) };
}
