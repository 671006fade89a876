import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pendingAttempt } from '../../src/domain/payments/charge-attempts.ts';
import {
  attemptReconciler,
  chargeProtocol,
  UNRESOLVED_AFTER_MS,
  type Booking,
} from '../../src/domain/payments/charge-protocol.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { invalidState } from '../../src/domain/errors.ts';
import type { ChargeResult, NotFound, PaymentGateway } from '../../src/domain/payments/gateway.ts';
import type { ChargeAttempt } from '../../src/domain/ports.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The charge protocol on a real store: an attempt is settled and booked exactly once, a booking
 * that fails is either refused (nothing moved) or left open for the reconciler (money moved), and
 * the reconciler voids what the gateway never had and hands a day of unknowns to an operator.
 */
for (const kind of await storeKinds()) {
  describe(`the charge protocol (${kind})`, () => {
    const clock = fixedClock(new Date('2031-06-01T12:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    /** The gateway's answer to a lookup, set by each test; the payment network is the one stand-in. */
    let lookup: () => Promise<ChargeResult | NotFound> = async () => ({ status: 'NOT_FOUND' });
    const gateway = {
      provider: 'SANDBOX',
      lookupCharge: () => lookup(),
      // A request whose connection breaks: it may or may not have reached the network.
      charge: () => Promise.reject(new Error('ECONNRESET')),
    } as unknown as PaymentGateway;
    const protocol = (onBookingFailure?: (err: unknown) => void) =>
      chargeProtocol({
        store: t.services.store,
        clock,
        gateways: { sandbox: gateway, production: gateway },
        gatewayTimeoutMs: 1000,
        onBookingFailure,
      });

    let n = 0;
    async function recorded(amountMinor: number): Promise<ChargeAttempt> {
      const attempt = pendingAttempt({
        scope: v.scope(),
        kind: 'VAULTED',
        key: `protocol-test:${kind}:${++n}`,
        // The protocol moves money and writes outcomes; what a booking would read of a plan is not its business.
        plan: null as never,
        transactionId: null,
        amountMinor,
        currency: 'USD',
        now: clock.now(),
      });
      return (await protocol().record(attempt)).attempt;
    }
    const counting = () => {
      const booked = { succeeded: 0 };
      const booking: Booking = {
        async succeeded() {
          booked.succeeded++;
        },
      };
      return { booked, booking };
    };

    test('a second settler of the same attempt books nothing and is answered with the attempt as the first settled it', async () => {
      const attempt = await recorded(500);
      const { booked, booking } = counting();
      const first = await protocol().settle(
        attempt,
        { status: 'SUCCEEDED', reference: 'ch_first', feeMinor: 0 },
        booking,
      );
      const second = await protocol().settle(
        attempt,
        { status: 'SUCCEEDED', reference: 'ch_second', feeMinor: 0 },
        booking,
      );
      assert.equal(booked.succeeded, 1);
      assert.equal(first.status, 'SUCCEEDED');
      assert.equal(second.status, 'SUCCEEDED');
      assert.equal(second.gatewayReference, 'ch_first');
    });

    test('recording an attempt under a key already recorded answers the first attempt, not a fresh one', async () => {
      const first = await recorded(400);
      const again = pendingAttempt({
        scope: v.scope(),
        kind: 'VAULTED',
        key: first.key,
        plan: null as never,
        transactionId: null,
        amountMinor: 400,
        currency: 'USD',
        now: clock.now(),
      });
      const second = await protocol().record(again);
      assert.equal(second.fresh, false);
      assert.equal(second.attempt.id, first.id);
    });

    test('a free attempt whose booking fails is refused at once; a paid one stays open for the reconciler to book', async () => {
      const failing: Booking = {
        async succeeded() {
          throw invalidState('The subscription changed meanwhile.');
        },
      };
      const free = await recorded(0);
      await assert.rejects(
        protocol().settle(free, { status: 'SUCCEEDED', reference: '', feeMinor: 0 }, failing),
        /changed meanwhile/,
      );

      const failures: unknown[] = [];
      const paid = await recorded(700);
      const after = await protocol((err) => failures.push(err)).settle(
        paid,
        { status: 'SUCCEEDED', reference: 'ch_paid', feeMinor: 0 },
        failing,
      );
      assert.equal(after.status, 'PENDING');
      assert.equal(failures.length, 1);
      assert.equal((await t.services.store.chargeAttempts.findByKey(paid.key))?.status, 'PENDING');
    });

    test('an attempt the gateway never had is voided by the reconciler, and nothing is booked', async () => {
      const attempt = await recorded(900);
      const { booked, booking } = counting();
      lookup = async () => ({ status: 'NOT_FOUND' });
      const after = await protocol().reconcile(attempt, booking);
      assert.equal(after.status, 'VOIDED');
      assert.equal(booked.succeeded, 0);
    });

    test('an attempt the gateway cannot answer about stays open for a day, then is handed to an operator as UNRESOLVED', async () => {
      const attempt = await recorded(1100);
      const { booking } = counting();
      lookup = () => Promise.reject(new Error('the network is down'));
      clock.advance(UNRESOLVED_AFTER_MS - 60_000);
      assert.equal((await protocol().reconcile(attempt, booking)).status, 'PENDING');
      clock.advance(120_000);
      assert.equal((await protocol().reconcile(attempt, booking)).status, 'UNRESOLVED');
    });

    test('the reconciler leaves attempts younger than its grace period alone, and settles older ones', async () => {
      const { booking } = counting();
      const reconciler = (graceMs: number) =>
        attemptReconciler({
          store: t.services.store,
          clock,
          protocol: protocol(),
          bookings: { VAULTED: booking } as never,
          graceMs,
        });
      const young = await recorded(1300);
      lookup = async () => ({ status: 'SUCCEEDED', reference: 'ch_late', feeMinor: 0 });
      await reconciler(60_000).run();
      assert.equal((await t.services.store.chargeAttempts.findByKey(young.key))?.status, 'PENDING');
      clock.advance(120_000);
      await reconciler(60_000).run();
      assert.equal((await t.services.store.chargeAttempts.findByKey(young.key))?.status, 'SUCCEEDED');
    });

    test('an attempt asked again is left alone by the reconciler for its grace period from that ask, then voided if the gateway never had it', async () => {
      const { booking } = counting();
      const reconciler = attemptReconciler({
        store: t.services.store,
        clock,
        protocol: protocol(),
        bookings: { VAULTED: booking } as never,
        graceMs: 60_000,
      });
      const attempt = await recorded(1500);
      clock.advance(120_000);
      // The client's retry: its request may still be on the way when the reconciler looks.
      await protocol().moveAgain(attempt, { token: 'tok_retry' });
      lookup = async () => ({ status: 'NOT_FOUND' });
      await reconciler.run();
      assert.equal(
        (await t.services.store.chargeAttempts.findByKey(attempt.key))?.status,
        'PENDING',
        'not voided while its retry may be on the way',
      );
      clock.advance(120_000);
      await reconciler.run();
      assert.equal((await t.services.store.chargeAttempts.findByKey(attempt.key))?.status, 'VOIDED');
    });
  });
}
