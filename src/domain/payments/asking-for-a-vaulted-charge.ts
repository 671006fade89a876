import type { Booking, Outcome } from './attempt-outcomes.ts';
import type { ChargeProtocol } from './charge-protocol.ts';
import { AppError } from '../errors.ts';
import { declineMessage, type DeclineCode } from './gateway.ts';
import { otherAmount, sameCharge } from './planning-a-vaulted-charge.ts';
import type { AttemptOf, ChargeAttempt } from '../ports.ts';
import type { PriceQuote } from '../tax/index.ts';

export interface VaultedChargeResult {
  /** PENDING: the gateway's answer is unknown; a retry with the same Idempotency-Key learns the outcome. */
  status: 'SUCCESS' | 'FAILED' | 'PENDING';
  deactivation: boolean;
  quote: PriceQuote;
  message: string | null;
}

/** What charging a recorded attempt's card needs: the protocol, and how its outcome is booked. */
export interface VaultedAsking {
  protocol: ChargeProtocol;
  booking: Booking<'VAULTED'>;
}

/** The answer for an attempt as it stands; PENDING while it is open. */
export function vaultedAnswer(
  attempt: AttemptOf<'VAULTED'>,
  quote: PriceQuote,
  outcome?: Outcome,
): VaultedChargeResult {
  if (attempt.status === 'SUCCEEDED') return { status: 'SUCCESS', deactivation: false, quote, message: null };
  if (attempt.status === 'PENDING' || attempt.status === 'UNKNOWN') {
    return {
      status: 'PENDING',
      deactivation: false,
      quote,
      message:
        'The payment provider has not confirmed the charge yet; retry with the same Idempotency-Key to learn the outcome.',
    };
  }
  if (outcome?.status === 'DECLINED')
    return { status: 'FAILED', deactivation: outcome.permanent, quote, message: outcome.message };
  const reason =
    attempt.status === 'DECLINED'
      ? declineMessage((attempt.failureCode ?? 'card_declined') as DeclineCode)
      : 'The charge did not go through.';
  return { status: 'FAILED', deactivation: false, quote, message: `This charge was declined before: ${reason}` };
}

/** Charges an open attempt's card (`again`: a retry, under the same id) and settles it; a payment the bank holds is not left open. */
export async function askForVaultedCharge(
  asking: VaultedAsking,
  attempt: AttemptOf<'VAULTED'>,
  again: boolean,
): Promise<{ settled: AttemptOf<'VAULTED'>; outcome: Outcome }> {
  const outcome = await (again ? asking.protocol.moveAgain : asking.protocol.move)(attempt, {
    token: attempt.plan.token,
  });
  const settled = await asking.protocol.settle(attempt, outcome, asking.booking);
  await asking.protocol.releaseHeld(attempt, outcome);
  return { settled, outcome };
}

/** The same key again: the same charge, never a second one; asked again while it is open. */
export async function retryVaultedCharge(
  asking: VaultedAsking,
  existing: ChargeAttempt,
  quote: PriceQuote,
): Promise<VaultedChargeResult> {
  if (!sameCharge(existing, quote)) throw otherAmount();
  if (existing.status !== 'PENDING' && existing.status !== 'UNKNOWN') return vaultedAnswer(existing, quote);
  const { settled, outcome } = await askForVaultedCharge(asking, existing, true);
  if (settled.status === 'PENDING' || settled.status === 'UNKNOWN') {
    throw new AppError(
      'PAYMENT_PENDING',
      'This charge is still being confirmed by the payment provider; retry later with the same Idempotency-Key.',
      {
        retryAfterSeconds: 5,
      },
    );
  }
  return vaultedAnswer(settled, quote, outcome);
}
