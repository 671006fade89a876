import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { fixedClock } from '../../src/domain/clock.ts';
import { STRIPE_EVENTS } from '../../src/gateways/stripe-setup.ts';
import type { AttemptKind } from '../../src/domain/ports.ts';
import { storeKinds } from '../helpers/test-app.ts';
import { startStripeWorld, type StripeWorld } from '../helpers/stripe-world.ts';

/**
 * Reversals at Stripe as a property (issue 32), on both stores, through the Stripe stand-in: random
 * sequences of purchases, refunds through the API (all that is left, or a part, of the payment named or
 * not), refunds in Stripe's dashboard, disputes opened, won and lost, refunds that fail, and Stripe's
 * events delivered late, backwards, in part or again. Stripe is the oracle. After every step, no payment
 * is reversed by less than nothing or by more than it was. After each sequence, once every event has
 * been heard (and tried again past its retry delays), for every payment:
 * - the ledger's reversals add up to what Stripe holds back: its refunds that did not fail and its
 *   disputes not won; one CHARGEBACK per dispute, one CHARGEBACK given back per dispute won;
 * - a refund asked through the API answers what both sides predict: 400 {error, message} when the
 *   ledger has not that much left (or, without `entryId`, the transaction is REFUNDED: docs/decisions.md
 *   §6a), 400 INVALID_STATE naming Stripe's refusal when Stripe refuses it (a dispute not won, a
 *   dashboard refund opentill has not heard of yet: a refusal is no outage), 200 otherwise; nothing
 *   reaches Stripe unless 200;
 * - the refund records agree with the ledger: each 200 answers one record whose id is a refund entry of
 *   the transaction (GET /v1/transaction/{id}) with the same amount, tax and income, negated; whose
 *   externalId is the Stripe refund made for it, of that amount; whose `refundable` says whether the
 *   ledger had anything left of the payment right after it; Stripe holds no refund from opentill
 *   but those records;
 * - no event is set aside as refused, no charge attempt of the transaction is left PENDING or UNKNOWN;
 * - what the ledger says is left is what can be refunded: nothing left, a refund without a body is a
 *   4xx and reaches Stripe not; something left (and no dispute in the way), refunding exactly that
 *   through the API succeeds, and then the ledger and Stripe both hold all of the payment taken back.
 */
type Entry = {
  id: string;
  type: string;
  amountTotal: string;
  taxAmount: string;
  income: string;
  currency: string;
  createDate: string;
};
type RefundRecord = {
  id: string;
  externalId: string;
  amountTotal: number;
  taxAmount: number;
  vendorIncome: number;
  currency: string;
  refundable: boolean;
  timestamp: number;
};
type Step =
  | { kind: 'buy'; type: 'ONETIME' | 'SUBSCRIPTION'; cents: number }
  | { kind: 'apiRefund'; payment: number; permille: number | undefined; named: boolean }
  | { kind: 'dashboardRefund'; payment: number; permille: number | undefined }
  | { kind: 'openDispute'; payment: number }
  | { kind: 'closeDispute'; dispute: number; outcome: 'won' | 'lost' }
  | { kind: 'failRefund'; refund: number }
  | { kind: 'deliver'; how: 'all' | 'backwards' | 'some' | 'replay'; pick: number }
  | { kind: 'later' };

const buy = fc.record({
  kind: fc.constant('buy' as const),
  type: fc.constantFrom('ONETIME' as const, 'SUBSCRIPTION' as const),
  cents: fc.integer({ min: 1000, max: 20000 }),
});
/** A part in thousandths: of the payment for the API (past 1000: more than it was), of what Stripe has left for the dashboard. */
const part = (max: number) => fc.option(fc.integer({ min: 1, max }), { nil: undefined });
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: buy, weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('apiRefund' as const),
      payment: fc.nat(),
      permille: part(1100),
      named: fc.boolean(),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('dashboardRefund' as const), payment: fc.nat(), permille: part(1000) }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('openDispute' as const), payment: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('closeDispute' as const),
      dispute: fc.nat(),
      outcome: fc.constantFrom('won' as const, 'lost' as const),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('failRefund' as const), refund: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('deliver' as const),
      how: fc.constantFrom('all' as const, 'backwards' as const, 'some' as const, 'replay' as const),
      pick: fc.nat(),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'later' as const }), weight: 1 },
);
const sequence = fc.tuple(buy, fc.array(step, { minLength: 2, maxLength: 7 })).map(([first, rest]) => [first, ...rest]);

const NUM_RUNS = Number(process.env.REVERSAL_PROPERTY_RUNS ?? 40);
/** Sequences this property found wrong once, reduced: tried first, every time. */
const FOUND: Step[][] = [
  // A refund through the API fails at Stripe, then a dashboard refund takes the whole payment: the
  // ledger must put the failed refund back and book the new one.
  [
    { kind: 'buy', type: 'ONETIME', cents: 1000 },
    { kind: 'apiRefund', payment: 0, permille: 600, named: false },
    { kind: 'failRefund', refund: 0 },
    { kind: 'dashboardRefund', payment: 0, permille: undefined },
  ],
  // A dispute opened and won before opentill hears of it, then the payment refunded through the API:
  // the chargeback and its win must still be booked.
  [
    { kind: 'buy', type: 'SUBSCRIPTION', cents: 1000 },
    { kind: 'openDispute', payment: 0 },
    { kind: 'closeDispute', dispute: 0, outcome: 'won' },
    { kind: 'apiRefund', payment: 0, permille: 500, named: false },
  ],
];
const cents = (amount: string) => Math.round(Number(amount) * 100);
const isPayment = (e: Entry) => e.type === 'ONETIME_PAYMENT' || e.type === 'SUBSCRIPTION_PAYMENT';
const isRefund = (e: Entry) => e.type === 'ONETIME_PAYMENT_REFUND' || e.type === 'SUBSCRIPTION_REFUND';
const ATTEMPT_KINDS: AttemptKind[] = ['PURCHASE', 'VAULTED', 'REFUND', 'RENEWAL'];

interface Paid {
  id: string;
  paymentIntent: string;
  amountMinor: number;
  records: RefundRecord[];
}

for (const kind of await storeKinds()) {
  describe(`reversals at Stripe as a property (${kind})`, () => {
    const clock = fixedClock(new Date());
    let w: StripeWorld;
    before(async () => {
      // Every run buys afresh, all from one address, often within a minute of the test's clock.
      w = await startStripeWorld(kind, {
        clock,
        now: () => clock.now(),
        env: { CHECKOUT_SESSIONS_PER_ADDRESS: '100000' },
      });
    });
    after(() => w?.close());

    let bought = 0;
    const read = async (id: string) =>
      (await w.vendor.api(`/v1/transaction/${id}`, { environment: 'production' })).json as {
        transactionStatus: string;
        entries: Entry[];
      };
    const refundThroughApi = (id: string, body?: Record<string, unknown>) =>
      w.vendor.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        environment: 'production',
        ...(body ? { body } : {}),
      });
    /** The ledger as the vendor reads it: the payment, what of it is reversed, what is left. */
    const ledgerOf = async (p: Paid) => {
      const t = await read(p.id);
      const payment = t.entries.find(isPayment);
      const reversed = 0 - t.entries.filter((e) => !isPayment(e)).reduce((sum, e) => sum + cents(e.amountTotal), 0);
      return {
        status: t.transactionStatus,
        entries: t.entries,
        payment,
        reversed,
        left: payment ? cents(payment.amountTotal) - reversed : 0,
      };
    };
    /** What Stripe holds of the payment: the charge's unrefunded amount, its refunds and disputes. */
    const stripeOf = async (p: Paid) => {
      const intent = await w.stripe.paymentIntents.retrieve(p.paymentIntent);
      const charge = await w.stripe.charges.retrieve(intent.latest_charge as string);
      const refunds = (await w.stripe.refunds.list({ payment_intent: p.paymentIntent, limit: 100 })).data;
      const disputes = (await w.stripe.disputes.list({ payment_intent: p.paymentIntent, limit: 100 })).data;
      const standing = refunds.filter((r) => r.status !== 'failed' && r.status !== 'canceled');
      const lostOrOpen = disputes.filter((d) => d.status !== 'won');
      return {
        refunds,
        disputes,
        remaining: charge.amount - charge.amount_refunded,
        blocked: lostOrOpen.length > 0,
        takenBack: standing.reduce((sum, r) => sum + r.amount, 0) + lostOrOpen.reduce((sum, d) => sum + d.amount, 0),
      };
    };
    /** Stripe's events (those opentill subscribes to) made since `since`, oldest first. */
    const eventsSince = (since: Set<string>) =>
      w.standin.events().filter((e) => !since.has(e.id) && (STRIPE_EVENTS as readonly string[]).includes(e.type));
    const deliver = async (events: { id: string }[]) => {
      for (const event of events) await w.standin.deliver(event.id);
      await w.app.services.processorEvents.runDue();
    };
    /**
     * Every event delivered and acted on, retried past any delay, until none made since `since` is left
     * to try (those of an earlier run that failed are left to retry on their own).
     */
    const settle = async (since: Set<string>) => {
      for (let round = 0; round < 16; round++) {
        await w.settleEvents();
        const ours = new Set(eventsSince(since).map((e) => e.id));
        const due = await w.app.services.store.processorEvents.listDue('9999-12-31T00:00:00.000Z', 1000);
        const waiting = due.filter((e) => ours.has(e.eventId));
        if (waiting.length === 0) return;
        if (round === 15)
          assert.fail(
            `events still wait to be acted on after 16 hours: ${JSON.stringify(waiting.map((e) => [e.type, e.lastError]))}`,
          );
        clock.advance(3600_000);
      }
    };

    async function purchase(type: 'ONETIME' | 'SUBSCRIPTION', value: number): Promise<Paid> {
      const product = await w.vendor.product(
        {
          type,
          ...(type === 'SUBSCRIPTION' ? { chargeFrequency: 'MONTHLY' } : {}),
          prices: [{ currency: 'USD', value }],
        },
        'production',
      );
      const run = await w.checkout(product.id, { email: `property-${++bought}@example.com` });
      assert.equal(run.status, 200, run.html);
      const attempt = await w.app.services.store.chargeAttempts.latestFor(run.transactionId!, 'PURCHASE');
      const intent = (await w.stripe.paymentIntents.list({ limit: 100 })).data.find(
        (i) => i.metadata.opentill_attempt === attempt!.id,
      )!;
      return { id: run.transactionId!, paymentIntent: intent.id, amountMinor: intent.amount, records: [] };
    }

    /** A refund through the API: opentill's ledger refuses (400), or Stripe (400 too), else it is made and its record agrees. */
    async function apiRefund(
      p: Paid,
      askedMinor: number | undefined,
      named: boolean,
    ): Promise<RefundRecord | undefined> {
      const before = await ledgerOf(p);
      const atStripe = await stripeOf(p);
      const body = {
        ...(askedMinor === undefined ? {} : { amount: askedMinor / 100 }),
        ...(named && before.payment ? { entryId: before.payment.id } : {}),
      };
      const res = await refundThroughApi(p.id, Object.keys(body).length > 0 ? body : undefined);
      const amountMinor = askedMinor ?? before.left;
      const ledgerRefuses =
        before.left <= 0 ||
        amountMinor > before.left ||
        (!('entryId' in body) && before.status === 'TRANSACTION_STATUS_REFUNDED');
      const stripeRefuses = atStripe.blocked || amountMinor > atStripe.remaining;
      const what = `refund ${JSON.stringify(body)} of ${p.id} (ledger: ${before.left} left, ${before.status}; Stripe: ${atStripe.remaining} left${atStripe.blocked ? ', disputed' : ''})`;
      if (ledgerRefuses || stripeRefuses) {
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        if (!ledgerRefuses) assert.match(res.json?.message ?? '', /payment provider refused/, `${what}: ${res.text}`);
        assert.ok(typeof res.json?.error === 'string' && typeof res.json?.message === 'string', `${what}: ${res.text}`);
        assert.equal((await stripeOf(p)).refunds.length, atStripe.refunds.length, `${what}: nothing reaches Stripe`);
        return undefined;
      }
      assert.equal(res.status, 200, `${what}: ${res.text}`);
      const records = res.json as RefundRecord[];
      assert.equal(records.length, 1, res.text);
      const record = records[0]!;
      assert.equal(cents(String(record.amountTotal)), amountMinor, `${what}: the record is of the amount refunded`);
      const now = await ledgerOf(p);
      assert.equal(now.reversed, before.reversed + amountMinor, `${what}: the ledger books it at once`);
      assert.equal(record.refundable, now.left > 0, `${what}: refundable says whether anything is left (${now.left})`);
      const made = (await stripeOf(p)).refunds.find((r) => r.id === record.externalId);
      assert.equal(made?.amount, amountMinor, `${what}: its externalId is the Stripe refund made for it`);
      p.records.push(record);
      return record;
    }

    /** The vendor's view agrees with Stripe's; see the header. */
    async function check(p: Paid, label: string) {
      const ledger = await ledgerOf(p);
      const stripe = await stripeOf(p);
      const at = `${label}: ${p.id}, ${JSON.stringify(ledger.entries.map((e) => [e.type, e.amountTotal]))}`;
      assert.equal(
        ledger.payment && cents(ledger.payment.amountTotal),
        p.amountMinor,
        `${at}: the payment is Stripe's`,
      );
      assert.equal(ledger.reversed, stripe.takenBack, `${at}: reversals as Stripe holds them`);
      assert.ok(ledger.reversed >= 0 && ledger.reversed <= p.amountMinor, `${at}: never more than the payment`);
      const chargebacks = ledger.entries.filter((e) => e.type === 'CHARGEBACK');
      assert.equal(
        chargebacks.filter((e) => cents(e.amountTotal) < 0).length,
        stripe.disputes.length,
        `${at}: one CHARGEBACK per dispute`,
      );
      assert.equal(
        chargebacks.filter((e) => cents(e.amountTotal) > 0).length,
        stripe.disputes.filter((d) => d.status === 'won').length,
        `${at}: one given back per dispute won`,
      );
      for (const record of p.records) {
        const entry = ledger.entries.find((e) => e.id === record.id);
        assert.ok(entry && isRefund(entry), `${at}: record ${record.id} is a refund entry`);
        assert.equal(
          cents(entry.amountTotal),
          0 - cents(String(record.amountTotal)),
          `${at}: record ${record.id}'s amount`,
        );
        assert.equal(cents(entry.taxAmount), 0 - cents(String(record.taxAmount)), `${at}: record ${record.id}'s tax`);
        assert.equal(
          cents(entry.income),
          0 - cents(String(record.vendorIncome)),
          `${at}: record ${record.id}'s income`,
        );
        assert.equal(entry.currency, record.currency);
        assert.equal(Date.parse(entry.createDate), record.timestamp);
      }
      const fromOpentill = stripe.refunds.filter((r) => r.metadata?.opentill_refund).map((r) => r.id);
      assert.deepEqual(
        fromOpentill.sort(),
        p.records.map((r) => r.externalId).sort(),
        `${at}: Stripe holds exactly the refunds opentill answered`,
      );
      for (const attemptKind of ATTEMPT_KINDS) {
        const open = await w.app.services.store.chargeAttempts.findOpenFor(p.id, attemptKind);
        assert.equal(open, undefined, `${at}: a ${attemptKind} attempt is left ${open?.status}`);
      }
      return { ledger, stripe };
    }

    /** What the ledger says is left can be refunded, and no more. */
    async function refundWhatIsLeft(p: Paid, since: Set<string>) {
      const { ledger, stripe } = await check(p, 'settled');
      if (ledger.left === 0) {
        const res = await refundThroughApi(p.id);
        assert.ok(
          res.status >= 400 &&
            res.status < 500 &&
            typeof res.json?.error === 'string' &&
            typeof res.json?.message === 'string',
          `${p.id}: nothing is left: ${res.status} ${res.text}`,
        );
        assert.equal((await stripeOf(p)).refunds.length, stripe.refunds.length);
        return;
      }
      await apiRefund(p, ledger.left, true);
      await settle(since);
      const after = await check(p, 'all that was left refunded');
      if (!stripe.blocked) assert.equal(after.ledger.left, 0, `${p.id}: the ${ledger.left} left was refunded`);
    }

    test('any sequence of payments, refunds, disputes, failed refunds and late or repeated events: the ledger reverses what Stripe holds, never more', async () => {
      await fc.assert(
        fc.asyncProperty(sequence, async (steps) => {
          const since = new Set(w.standin.events().map((e) => e.id));
          const paid: Paid[] = [];
          const disputes: string[] = [];
          const refunds: string[] = [];
          const nth = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);
          for (const s of steps) {
            if (s.kind === 'buy') paid.push(await purchase(s.type, s.cents / 100));
            if (s.kind === 'apiRefund') {
              const p = nth(paid, s.payment)!;
              const asked =
                s.permille === undefined ? undefined : Math.max(1, Math.floor((p.amountMinor * s.permille) / 1000));
              const record = await apiRefund(p, asked, s.named);
              if (record) refunds.push(record.externalId);
            }
            if (s.kind === 'dashboardRefund') {
              const p = nth(paid, s.payment)!;
              const atStripe = await stripeOf(p);
              if (atStripe.remaining > 0 && !atStripe.blocked) {
                const amount =
                  s.permille === undefined
                    ? undefined
                    : Math.max(1, Math.floor((atStripe.remaining * s.permille) / 1000));
                refunds.push((await w.standin.refundFromDashboard(p.paymentIntent, amount)).id);
              }
            }
            if (s.kind === 'openDispute') {
              // Stripe opens one dispute per charge, and none on a charge refunded in full.
              const p = nth(paid, s.payment)!;
              const atStripe = await stripeOf(p);
              if (atStripe.remaining > 0 && atStripe.disputes.length === 0)
                disputes.push((await w.standin.openDispute(p.paymentIntent)).id);
            }
            if (s.kind === 'closeDispute') {
              const id = nth(disputes, s.dispute);
              if (id && (await w.stripe.disputes.retrieve(id)).status === 'needs_response')
                await w.standin.closeDispute(id, s.outcome);
            }
            if (s.kind === 'failRefund') {
              const id = nth(refunds, s.refund);
              if (id && (await w.stripe.refunds.retrieve(id)).status === 'succeeded') await w.standin.failRefund(id);
            }
            if (s.kind === 'deliver') {
              const events = eventsSince(since);
              const pending = events.filter((e) => e.pending_webhooks > 0);
              if (s.how === 'all') await w.settleEvents();
              if (s.how === 'backwards') await deliver(pending.reverse());
              if (s.how === 'some') await deliver(pending.filter((_, i) => (s.pick >> (i % 30)) & 1));
              if (s.how === 'replay') await deliver(events.reverse());
            }
            if (s.kind === 'later') {
              clock.advance(60_000);
              await w.app.services.processorEvents.runDue();
            }
            for (const p of paid) {
              const { reversed } = await ledgerOf(p);
              assert.ok(
                reversed >= 0 && reversed <= p.amountMinor,
                `after ${JSON.stringify(s)}: ${p.id} is reversed by ${reversed} of ${p.amountMinor}`,
              );
            }
          }
          await settle(since);
          for (const p of paid) await check(p, 'after the sequence');
          // An event refused for too long is kept, refusal and all, for an operator: none should be.
          const ours = new Set(eventsSince(since).map((e) => e.id));
          const setAside = await w.app.services.database.kysely
            .selectFrom('processor_events')
            .select(['event_id', 'type', 'last_error'])
            .where('processed_at', 'is not', null)
            .where('last_error', 'is not', null)
            .execute();
          assert.deepEqual(
            setAside.filter((e) => ours.has(e.event_id)),
            [],
            'no event is set aside as refused',
          );
          for (const p of paid) await refundWhatIsLeft(p, since);
        }),
        { numRuns: NUM_RUNS, examples: FOUND.map((steps) => [steps]) },
      );
    });
  });
}
