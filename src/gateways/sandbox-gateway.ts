import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  cardBrand,
  isExpired,
  passesLuhn,
  type CardInput,
  type ChargeRequest,
  type ChargeResult,
  type Decline,
  type PaymentGateway,
  type RefundResult,
  type TokenizeResult,
} from '../domain/payments/index.ts';
import { precompiled, precompiledRow } from '../store/precompiled.ts';
import type { Schema } from '../store/schema.ts';
import { SANDBOX_TEST_CARDS, type SandboxBehaviour } from '../domain/payments/index.ts';

const DECLINES: Record<Exclude<SandboxBehaviour, 'success' | 'later_declined'>, Decline> = {
  card_declined: { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false },
  insufficient_funds: {
    status: 'DECLINED',
    code: 'insufficient_funds',
    message: 'The card has insufficient funds.',
    permanent: false,
  },
  expired_card: { status: 'DECLINED', code: 'expired_card', message: 'The card has expired.', permanent: true },
};

/** An id the reconciler found missing: voided, so a request still on its way cannot move money any more. */
const VOIDED = 'voided';
const VOIDED_CHARGE: Decline = {
  status: 'DECLINED',
  code: 'card_declined',
  message: 'This payment was cancelled before it reached the card.',
  permanent: false,
};

/**
 * What a gateway whose cards are typed into opentill's own form (the sandbox's virtual cards) says
 * to the browser-only parts of the port: no browser sessions, and no charge ever waits for the bank.
 */
export const FORM_CARD_ENTRY: Pick<
  PaymentGateway,
  'cardEntry' | 'startSession' | 'authenticationSession' | 'cancelPending'
> = {
  cardEntry: { kind: 'form' },
  async startSession() {
    return {
      status: 'DECLINED',
      code: 'provider_unavailable',
      message: "The sandbox takes its test cards in opentill's own form.",
      permanent: false,
    };
  },
  authenticationSession: async () => undefined,
  cancelPending: async () => ({ status: 'NOT_FOUND' }),
};

/** A test card's number checked and made a token that carries the card's behaviour; real cards are refused. */
function tokenizeTestCard(card: CardInput, at: Date): TokenizeResult {
  const digits = card.number.replace(/[\s-]/g, '');
  if (!passesLuhn(digits))
    return { status: 'DECLINED', code: 'invalid_card', message: 'The card number is not valid.', permanent: true };
  const test = SANDBOX_TEST_CARDS[digits];
  if (!test) {
    return {
      status: 'DECLINED',
      code: 'invalid_card',
      message: 'The sandbox accepts only its test card numbers; real cards are refused.',
      permanent: true,
    };
  }
  if (isExpired(card.expMonth, card.expYear, at)) return DECLINES.expired_card;
  return {
    status: 'OK',
    card: {
      token: `sbx_${test.behaviour}_${randomBytes(12).toString('hex')}`,
      brand: cardBrand(digits),
      last4: digits.slice(-4),
      expMonth: card.expMonth,
      expYear: card.expYear < 100 ? 2000 + card.expYear : card.expYear,
    },
  };
}

/** What a charge of a test card's token does; `later_declined` pays its card's first charge and declines the rest. */
async function testCardOutcome(
  db: Kysely<Schema>,
  request: ChargeRequest,
): Promise<Exclude<SandboxBehaviour, 'later_declined'>> {
  const behaviour = /^sbx_(success|card_declined|insufficient_funds|expired_card|later_declined)_/.exec(
    request.token,
  )?.[1] as SandboxBehaviour | undefined;
  let outcome: Exclude<SandboxBehaviour, 'later_declined'> =
    behaviour === 'later_declined' ? 'success' : (behaviour ?? 'card_declined');
  if (behaviour === 'later_declined') {
    const earlier = await db
      .selectFrom('sandbox_gateway_charges')
      .select('attempt_id')
      .where('token', '=', request.token)
      .where('attempt_id', '!=', request.attemptId)
      .limit(1)
      .executeTakeFirst();
    if (earlier) outcome = 'card_declined';
  }
  return outcome;
}

/**
 * Virtual money. The token carries the test card's behaviour; charges and refunds are kept by their
 * id, so asking twice for the same one answers the first outcome, as a real provider's idempotency does.
 */
export function sandboxGateway(db: Kysely<Schema>, now: () => Date = () => new Date()): PaymentGateway {
  const charged = keptOnce(db, 'sandbox_gateway_charges', 'attempt_id', [
    'attempt_id',
    'token',
    'amount_minor',
    'currency',
    'outcome',
    'reference',
    'created_at',
  ]);
  const refunded = keptOnce(db, 'sandbox_gateway_refunds', 'refund_id', [
    'refund_id',
    'charge_reference',
    'amount_minor',
    'currency',
    'outcome',
    'reference',
    'created_at',
  ]);
  return {
    provider: 'SANDBOX',
    ...FORM_CARD_ENTRY,
    tokenize: async (card, at) => tokenizeTestCard(card, at),
    async charge(request): Promise<ChargeResult> {
      const outcome = await testCardOutcome(db, request);
      const row = await charged({
        attempt_id: request.attemptId,
        token: request.token,
        amount_minor: request.amountMinor,
        currency: request.currency,
        outcome,
        reference: `sbx_ch_${randomBytes(10).toString('hex')}`,
        created_at: now().toISOString(),
      });
      return chargeOutcome(row.outcome, row.reference);
    },
    async refund(request): Promise<RefundResult> {
      const row = await refunded({
        refund_id: request.refundId,
        charge_reference: request.chargeReference,
        amount_minor: request.amountMinor,
        currency: request.currency,
        outcome: 'success',
        reference: `sbx_re_${randomBytes(10).toString('hex')}`,
        created_at: now().toISOString(),
      });
      return refundOutcome(row.outcome, row.reference);
    },
    async lookupCharge(attemptId) {
      const row = await charged({
        attempt_id: attemptId,
        token: '',
        amount_minor: 0,
        currency: 'XXX',
        outcome: VOIDED,
        reference: '',
        created_at: now().toISOString(),
      });
      return row.outcome === VOIDED ? { status: 'NOT_FOUND' } : chargeOutcome(row.outcome, row.reference);
    },
    async lookupRefund(refundId) {
      const row = await refunded({
        refund_id: refundId,
        charge_reference: null,
        amount_minor: 0,
        currency: 'XXX',
        outcome: VOIDED,
        reference: '',
        created_at: now().toISOString(),
      });
      return row.outcome === VOIDED ? { status: 'NOT_FOUND' } : refundOutcome(row.outcome, row.reference);
    },
  };
}

function chargeOutcome(outcome: string, reference: string): ChargeResult {
  if (outcome === 'success') return { status: 'SUCCEEDED', reference, feeMinor: 0 };
  if (outcome === VOIDED) return VOIDED_CHARGE;
  return DECLINES[outcome as keyof typeof DECLINES];
}

function refundOutcome(outcome: string, reference: string): RefundResult {
  return outcome === VOIDED
    ? { status: 'FAILED', message: 'This refund was cancelled before it was made.' }
    : { status: 'SUCCEEDED', reference };
}

type GatewayTable = 'sandbox_gateway_charges' | 'sandbox_gateway_refunds';

/**
 * The sandbox network's memory of one kind of request, by its id: the first write of an id stays,
 * and every call answers the row as first written (a replay; a lookup that voids an unknown id).
 * Both statements are compiled once.
 */
function keptOnce<T extends GatewayTable>(
  db: Kysely<Schema>,
  table: T,
  key: keyof Schema[T] & string,
  columns: readonly (keyof Schema[T] & string)[],
) {
  const insert = precompiledRow(db, columns, (row: Schema[T]) =>
    db
      .insertInto(table)
      .values(row as never)
      .onConflict((oc) => oc.column(key as never).doNothing()),
  );
  const read = precompiled(db, 1, (id: string) =>
    db
      .selectFrom(table as GatewayTable)
      .selectAll()
      .where(key as never, '=', id as never),
  );
  return async (row: Schema[T]): Promise<Schema[T]> => {
    await insert(row);
    return (await read(row[key] as string))[0] as Schema[T];
  };
}
