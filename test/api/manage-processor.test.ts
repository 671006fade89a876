import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { ChargeResult, PaymentGateway, SessionRequest, TokenizedCard } from '../../src/domain/payments/gateway.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The management page with a processor that takes cards in the browser (issue 13): a renewal the
 * bank held for 3-D Secure is shown and confirmed from the page, and booked once whichever way it
 * arrives; a new card is saved through a setup session of the processor's element. The processor is
 * the edge of the world: a scripted one plays it (what its script does in the browser is what the
 * tests call on it); the store and HTTP are real.
 */

type Behaviour = 'ok' | 'authenticate' | 'decline';
interface Payment {
  attemptId: string;
  /** `open`: a checkout session the customer has not paid yet. */
  status: 'open' | 'requires_action' | 'processing' | 'succeeded' | 'canceled';
  method?: TokenizedCard;
}
interface Setup {
  request: SessionRequest;
  status: 'open' | 'succeeded';
  method?: TokenizedCard;
}

/** A processor with the port's browser card entry: off-session charges as scripted per card, held payments, setup sessions. */
function scriptedProcessor() {
  const behaviour = new Map<string, Behaviour>();
  const charges = new Map<string, ChargeResult>();
  const payments = new Map<string, Payment>();
  const setups = new Map<string, Setup>();
  let next = 0;
  const gateway: PaymentGateway = {
    provider: 'SCRIPTED',
    cardEntry: {
      kind: 'browser',
      library: 'stripe',
      scriptUrl: 'https://js.processor.test/v3/',
      publicKey: 'pk_test_manage',
      origins: ['https://js.processor.test', 'https://api.processor.test'],
    },
    async tokenize() {
      return {
        status: 'DECLINED',
        code: 'invalid_card',
        message: 'Card details are taken in the browser.',
        permanent: true,
      };
    },
    async startSession(request) {
      if (request.amountMinor > 0) {
        const reference = `pi_${++next}`;
        payments.set(reference, { attemptId: request.attemptId, status: 'open' });
        return { status: 'OPEN', reference, clientSecret: `${reference}_secret_c`, mode: 'payment' };
      }
      const reference = `seti_${++next}`;
      setups.set(reference, { request, status: 'open' });
      return { status: 'OPEN', reference, clientSecret: `${reference}_secret_x`, mode: 'setup' };
    },
    async charge(request) {
      const seen = charges.get(request.attemptId);
      if (seen) return seen;
      const mode = behaviour.get(request.token) ?? 'ok';
      let result: ChargeResult;
      if (mode === 'authenticate') {
        const reference = `pi_${++next}`;
        payments.set(reference, { attemptId: request.attemptId, status: 'requires_action' });
        result = {
          status: 'DECLINED',
          code: 'authentication_required',
          message: 'Authenticate.',
          permanent: false,
          reference,
        };
      } else if (mode === 'decline') {
        result = { status: 'DECLINED', code: 'card_declined', message: 'The card was declined.', permanent: false };
      } else {
        const reference = `pi_${++next}`;
        payments.set(reference, { attemptId: request.attemptId, status: 'succeeded' });
        result = { status: 'SUCCEEDED', reference, feeMinor: 30 };
      }
      charges.set(request.attemptId, result);
      return result;
    },
    async refund(request) {
      return { status: 'SUCCEEDED', reference: `re_${request.refundId}` };
    },
    async lookupCharge(attemptId, reference) {
      if (reference) {
        const setup = setups.get(reference);
        if (setup)
          return setup.status === 'succeeded'
            ? { status: 'SUCCEEDED', reference: '', feeMinor: 0, method: setup.method }
            : { status: 'UNKNOWN' };
        const payment = payments.get(reference);
        if (!payment || payment.status === 'canceled') return { status: 'NOT_FOUND' };
        return payment.status === 'succeeded'
          ? { status: 'SUCCEEDED', reference, feeMinor: 30, method: payment.method }
          : { status: 'UNKNOWN' };
      }
      return charges.get(attemptId) ?? { status: 'NOT_FOUND' };
    },
    async lookupRefund() {
      return { status: 'NOT_FOUND' };
    },
    async authenticationSession(reference) {
      return payments.get(reference)?.status === 'requires_action'
        ? { clientSecret: `${reference}_secret_y`, method: 'pm_held' }
        : undefined;
    },
    async cancelPending(reference) {
      const payment = payments.get(reference);
      if (payment?.status === 'succeeded') return { status: 'SUCCEEDED', reference, feeMinor: 30 };
      if (payment) payment.status = 'canceled';
      return { status: 'NOT_FOUND' };
    },
  };
  return {
    gateway,
    /** What the processor's element does when the customer pays a checkout session with a card. */
    pay(reference: string, number: string) {
      Object.assign(payments.get(reference)!, {
        status: 'succeeded',
        method: { token: `cus_test/pm_${number}`, brand: 'visa', last4: number.slice(-4), expMonth: 12, expYear: 2035 },
      });
    },
    lastPayment: () => [...payments.keys()].at(-1)!,
    /** How later charges of a card go. */
    script: (card: string, mode: Behaviour) => behaviour.set(`cus_test/pm_${card}`, mode),
    /** What the processor's frame does when the customer completes (or is still completing) the bank's check. */
    authenticate: (reference: string, status: Payment['status'] = 'succeeded') =>
      (payments.get(reference)!.status = status),
    payment: (reference: string) => payments.get(reference),
    setup: (reference: string) => setups.get(reference),
    setups: () => [...setups.entries()],
    /** What the processor's element does when the customer saves a card in it. */
    confirmSetup(reference: string, last4: string) {
      const setup = setups.get(reference)!;
      setup.status = 'succeeded';
      setup.method = { token: `cus_new/pm_${last4}`, brand: 'mastercard', last4, expMonth: 8, expYear: 2037 };
    },
  };
}

const AUTH_CARD = '4000002760003184';
const DECLINED_LATER = '4000000000000341';
const GOOD_CARD = '4242424242424242';

for (const kind of await storeKinds()) {
  describe(`management page with the processor's card element (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-02T08:00:00.000Z'));
    const processor = scriptedProcessor();
    let t: TestApp;
    let v: TestVendor;
    useTestApp(
      kind,
      { clock, gateways: { production: processor.gateway } },
      (app, vendor) => ((t = app), (v = vendor)),
      'Acme Software',
    );

    const manageLink = async (email: string, environment: 'production' | 'sandbox' = 'production') => {
      const res = await v.api(`/v1/generate-url-to-manage-transactions/${encodeURIComponent(email)}`, { environment });
      assert.equal(res.status, 200, res.text);
      return new URL(res.json.url).pathname;
    };
    const open = async (path: string) => {
      const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
      return {
        status: res.status,
        html: await res.text(),
        csp: res.headers.get('content-security-policy'),
        location: res.headers.get('location'),
      };
    };
    const formToken = (html: string) => /name="formToken" value="([^"]+)"/.exec(html)![1]!;
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const postJson = async (path: string, fields: Record<string, string>) => {
      const res = await post(path, fields);
      return { status: res.status, json: (await res.json()) as any };
    };
    const tx = async (id: string) => (await t.services.store.transactions.find(v.scope('production'), id))!;
    const payments = async (id: string) =>
      (await t.services.store.entries.listForTransaction(id)).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');
    const latestRenewal = async (id: string) => (await t.services.store.chargeAttempts.latestFor(id, 'RENEWAL'))!;
    /** A purchase through the hosted checkout's browser session, paid with `number` in the processor's element. */
    const buy = async (productId: string, email: string, number: string, currency?: string) => {
      const formToken = randomBytes(18).toString('base64url');
      const started = await t.services.checkout.startSession(v.scope('production'), formToken, {
        productId,
        email,
        country: 'US',
        currency,
      });
      assert.equal(started.status, 'SESSION');
      processor.pay(processor.lastPayment(), number);
      const outcome = (await t.services.checkout.status(v.scope('production'), formToken))!;
      assert.equal(outcome.status, 'PAID');
      return (outcome as Extract<typeof outcome, { status: 'PAID' }>).transaction.id;
    };
    const subscription = (fields: Record<string, unknown> = {}) =>
      v.product(
        { type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 5 }], ...fields } as any,
        'production',
      );
    const section = (html: string, id: string) => new RegExp(`data-id="${id}"[\\s\\S]*?</section>`).exec(html)![0];

    /** A monthly subscription bought on 2 May whose renewal on 2 June the bank holds for authentication. */
    const heldRenewal = async (email: string, name = 'Pro') => {
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      const plan = await v.product(
        { type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', name, prices: [{ currency: 'USD', value: 12 }] } as any,
        'production',
      );
      const id = await buy(plan.id, email, AUTH_CARD);
      processor.script(AUTH_CARD, 'authenticate');
      clock.set(new Date('2030-06-02T08:00:00.000Z'));
      await t.services.billing.runDue();
      const held = await latestRenewal(id);
      assert.equal(held.status, 'DECLINED');
      assert.equal(held.failureCode, 'authentication_required');
      assert.match(held.gatewayReference!, /^pi_/);
      // Later in the day: what the customer does is after what billing did.
      clock.set(new Date('2030-06-02T10:00:00.000Z'));
      return { id, held, reference: held.gatewayReference! };
    };

    test('the held renewal is shown, with its amount and product, only while the bank awaits the customer', async () => {
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      const plan = await v.product(
        {
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          name: 'Team',
          prices: [{ currency: 'USD', value: 7 }],
        } as any,
        'production',
      );
      const calm = await buy(plan.id, 'gia@example.com', GOOD_CARD);
      assert.doesNotMatch(
        (await open(await manageLink('gia@example.com'))).html,
        /data-testid="requires-action"/,
        'nothing held yet',
      );

      const { id, reference } = await heldRenewal('gia@example.com');
      const path = await manageLink('gia@example.com');
      const page = await open(path);
      assert.equal(page.status, 200);
      const held = section(page.html, id);
      assert.match(held, /Your bank asks you to confirm the payment of \$12\.00 for Pro/);
      assert.match(held, /data-testid="confirm-payment"/);
      assert.match(held, /Confirming the payment needs JavaScript/, 'said to a browser without JavaScript');
      assert.doesNotMatch(section(page.html, calm), /requires-action/, 'the other subscription asks nothing');
      assert.match(
        page.html,
        /<script nonce="[^"]+" src="https:\/\/js\.processor\.test\/v3\/"><\/script>/,
        "the processor's script is loaded",
      );
      assert.match(page.csp!, /script-src 'nonce-[^']+' https:\/\/js\.processor\.test https:\/\/api\.processor\.test/);
      assert.match(page.csp!, /frame-src https:\/\/js\.processor\.test/);
      assert.equal((await tx(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE', 'still active, in dunning');

      // The next dunning try cancels the held payment and charges again: nothing is awaited any more.
      processor.script(AUTH_CARD, 'decline');
      clock.set(new Date('2030-06-03T08:00:00.000Z'));
      await t.services.billing.runDue();
      assert.equal(processor.payment(reference)!.status, 'canceled');
      assert.equal((await latestRenewal(id)).failureCode, 'card_declined');
      assert.doesNotMatch((await open(await manageLink('gia@example.com'))).html, /requires-action/);
    });

    test("the JSON endpoints answer only for the customer's own transaction, with the page's form token, while it is awaited", async () => {
      const { id, reference } = await heldRenewal('hal@example.com');
      const other = await buy((await subscription()).id, 'ivy@example.com', GOOD_CARD);
      const calm = await buy((await subscription()).id, 'hal@example.com', GOOD_CARD);
      const path = await manageLink('hal@example.com');
      const token = formToken((await open(path)).html);
      const ivyToken = formToken((await open(await manageLink('ivy@example.com'))).html);

      const session = await postJson(`${path}/authentication/session`, { formToken: token, transactionId: id });
      assert.equal(session.status, 200);
      assert.deepEqual(session.json, { clientSecret: `${reference}_secret_y`, paymentMethod: 'pm_held' });

      assert.equal(
        (await postJson(`${path}/authentication/session`, { transactionId: id })).status,
        403,
        'no form token',
      );
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: ivyToken, transactionId: id })).status,
        403,
        "another link's form token",
      );
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: other })).status,
        404,
        "someone else's purchase",
      );
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: 'TC-TR_nothing' })).status,
        404,
      );
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: calm })).status,
        409,
        'nothing of it awaits',
      );
      assert.equal(
        (await postJson(`${path.replace(/.$/, 'x')}/authentication/session`, { formToken: token, transactionId: id }))
          .status,
        404,
        'a forged link',
      );

      assert.equal((await postJson(`${path}/card/session`, { transactionId: id })).status, 403);
      assert.equal((await postJson(`${path}/card/session`, { formToken: ivyToken, transactionId: id })).status, 403);
      assert.equal((await postJson(`${path}/card/session`, { formToken: token, transactionId: other })).status, 404);
      assert.equal(processor.setups().length, 0, 'no session was started for any of them');

      // What the page's parser refuses is answered as JSON too.
      for (const endpoint of ['authentication/session', 'card/session']) {
        const res = await fetch(`${t.url}${path}/${endpoint}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"formToken":1}',
        });
        assert.equal(res.status, 415);
        assert.deepEqual(Object.keys((await res.json()) as object).sort(), ['error', 'message']);
      }

      // Once it is paid there is nothing to confirm.
      processor.authenticate(reference);
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: id })).status,
        409,
      );

      clock.advance(3600_000);
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: id })).status,
        410,
        'an expired link',
      );
    });

    test("confirming books the renewal once: not before the bank says so, not twice, not again after the processor's event booked it", async () => {
      const { id, held, reference } = await heldRenewal('jon@example.com');
      const path = await manageLink('jon@example.com');
      const token = formToken((await open(path)).html);
      const confirm = () => post(path, { formToken: token, action: 'authenticated', transactionId: id });

      // Posted before the customer completed the check: nothing booked, and the held payment is left alone.
      const early = await confirm();
      assert.equal(early.status, 409);
      assert.match(await early.text(), /not confirmed yet/);
      assert.equal(processor.payment(reference)!.status, 'requires_action');
      assert.equal((await payments(id)).length, 1);

      processor.authenticate(reference);
      const done = await confirm();
      assert.equal(done.status, 303);
      assert.equal(done.headers.get('location'), '?done=authenticated');
      assert.match((await open(`${path}?done=authenticated`)).html, /Thank you: the payment is confirmed/);
      const second = await confirm();
      assert.equal(second.status, 303, 'a second click is answered the same');
      assert.equal(
        await t.services.billing.bookAuthenticated(held, reference),
        'ALREADY_BOOKED',
        "the processor's event after it",
      );
      assert.equal(
        (await open(`${path}?confirmed=${id}`)).location,
        '?done=authenticated',
        'the return from a redirect after it',
      );

      const booked = await payments(id);
      assert.equal(booked.length, 2, 'the purchase and one renewal');
      assert.equal(booked[1]!.externalId, reference);
      assert.equal(booked[1]!.amountTotalMinor, 1200);
      const after = await tx(id);
      assert.equal(after.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(after.billing?.failedAttempts, 0);
      assert.equal(after.nextCharge, '2030-07-02T08:00:00.000Z');
      const feed = (await v.api('/v1/changed-transactions', { environment: 'production' })).json as any[];
      assert.equal(feed.find((e) => e.id === id)?.changeStatus, 'CHANGED_STATUS_RENEWED');
      assert.doesNotMatch((await open(path)).html, /requires-action/, 'nothing awaits any more');
    });

    test("the processor's event first, then the customer's confirmation: one renewal", async () => {
      const { id, held, reference } = await heldRenewal('kai@example.com');
      const path = await manageLink('kai@example.com');
      const token = formToken((await open(path)).html);
      processor.authenticate(reference);
      assert.equal(await t.services.billing.bookAuthenticated(held, reference), 'BOOKED');
      assert.doesNotMatch((await open(path)).html, /requires-action/);
      const res = await post(path, { formToken: token, action: 'authenticated', transactionId: id });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '?done=authenticated');
      assert.equal((await payments(id)).length, 2);
    });

    test('two confirmations at once book one renewal', async () => {
      const { id, reference } = await heldRenewal('lea@example.com');
      const path = await manageLink('lea@example.com');
      const token = formToken((await open(path)).html);
      processor.authenticate(reference);
      const answers = await Promise.all(
        [1, 2, 3].map(() => post(path, { formToken: token, action: 'authenticated', transactionId: id })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [303, 303, 303],
      );
      assert.equal((await payments(id)).length, 2);
      assert.equal((await tx(id)).nextCharge, '2030-07-02T08:00:00.000Z');
    });

    test('a payment the bank is still confirming is shown as such, and booked when it is', async () => {
      const { id, reference } = await heldRenewal('max@example.com');
      const path = await manageLink('max@example.com');
      const token = formToken((await open(path)).html);
      processor.authenticate(reference, 'processing');
      const res = await post(path, { formToken: token, action: 'authenticated', transactionId: id });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), `?confirmed=${id}`);
      const waiting = await open(`${path}?confirmed=${id}`);
      assert.equal(waiting.status, 202);
      assert.match(waiting.html, /still confirming the payment/);
      assert.equal((await payments(id)).length, 1);
      processor.authenticate(reference, 'succeeded');
      assert.equal((await open(`${path}?confirmed=${id}`)).location, '?done=authenticated');
      assert.equal((await payments(id)).length, 2);
    });

    test("a new card through the processor's setup session: saved like the card form saves one, and a dunning renewal is retried with it", async () => {
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      const plan = await v.product(
        {
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          name: 'Sync',
          prices: [
            { currency: 'USD', value: 10 },
            { currency: 'EUR', value: 9 },
          ],
        } as any,
        'production',
      );
      const id = await buy(plan.id, 'nia@example.com', DECLINED_LATER, 'EUR');
      const current = (await t.services.store.paymentMethods.find((await tx(id)).paymentMethodId!))!.token;
      processor.script(DECLINED_LATER, 'decline');
      clock.set(new Date('2030-06-02T08:00:00.000Z'));
      assert.equal((await t.services.billing.runDue()).declined, 1);
      assert.equal((await tx(id)).nextCharge, '2030-06-03T08:00:00.000Z');
      clock.set(new Date('2030-06-02T09:00:00.000Z'));

      const path = await manageLink('nia@example.com');
      const page = await open(path);
      const change = section(page.html, id);
      assert.match(change, /data-card-change="[^"]+" data-currency="eur"/);
      assert.doesNotMatch(change, /name="cardNumber"/, "no card field of opentill's own");
      assert.match(change, /The card field needs JavaScript/);
      const token = formToken(page.html);

      const started = await postJson(`${path}/card/session`, { formToken: token, transactionId: id });
      assert.equal(started.status, 200);
      const [[reference, setup]] = processor.setups().slice(-1) as [[string, Setup]];
      assert.equal(started.json.clientSecret, `${reference}_secret_x`);
      assert.match(setup.request.attemptId, /^card:[\w-]{12,}$/);
      assert.deepEqual(
        { ...setup.request, attemptId: undefined },
        {
          attemptId: undefined,
          amountMinor: 0,
          currency: 'EUR',
          saveForLater: true,
          scope: v.scope('production'),
          customer: { email: 'nia@example.com', name: null, reference: null },
          replacesCard: current,
          description: 'New card for Sync',
        },
      );
      const cardSession = started.json.cardSession as string;

      // Not confirmed in the element yet: nothing saved, a page that checks again.
      const early = await post(path, { formToken: token, action: 'card-complete', transactionId: id, cardSession });
      assert.equal(early.status, 303);
      const again = await open(`${path}${early.headers.get('location')}`);
      assert.equal(again.status, 202);
      assert.match(again.html, /still checking the new card/);
      assert.match(section(again.html, id), /Card: Visa ending in 0341/);

      processor.confirmSetup(reference, '4444');
      const saved = await post(path, { formToken: token, action: 'card-complete', transactionId: id, cardSession });
      assert.equal(saved.status, 303);
      assert.equal(saved.headers.get('location'), '?done=card');
      assert.match(
        section((await open(`${path}?done=card`)).html, id),
        /Card: Mastercard ending in 4444, expires 08\/2037/,
      );
      const methodId = (await tx(id)).paymentMethodId!;
      assert.equal((await t.services.store.paymentMethods.find(methodId))!.token, 'cus_new/pm_4444');
      assert.equal((await tx(id)).nextCharge, '2030-06-02T09:00:00.000Z', 'due again now');

      assert.equal(
        (await post(path, { formToken: token, action: 'card-complete', transactionId: id, cardSession })).status,
        303,
        'sent twice',
      );
      assert.equal((await tx(id)).paymentMethodId, methodId, 'saved once');

      assert.equal((await t.services.billing.runDue()).renewed, 1);
      assert.equal((await tx(id)).nextCharge, '2030-07-02T08:00:00.000Z');
    });

    test('a card session is finished only for the transaction and customer it was started for', async () => {
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      const plan = await v.product(
        { type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices: [{ currency: 'USD', value: 5 }] } as any,
        'production',
      );
      const mine = await buy(plan.id, 'ola@example.com', GOOD_CARD);
      const second = await buy(plan.id, 'ola@example.com', GOOD_CARD);
      const theirs = await buy(plan.id, 'pat@example.com', GOOD_CARD);
      const ola = await manageLink('ola@example.com');
      const pat = await manageLink('pat@example.com');
      const olaToken = formToken((await open(ola)).html);
      const patToken = formToken((await open(pat)).html);

      const started = await postJson(`${pat}/card/session`, { formToken: patToken, transactionId: theirs });
      assert.equal(started.status, 200);
      const reference = processor.setups().slice(-1)[0]![0];
      processor.confirmSetup(reference, '9999');
      const patSession = started.json.cardSession as string;
      const [body, signature] = patSession.split('.') as [string, string];
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
      const forged = `${Buffer.from(JSON.stringify({ ...claims, email: 'ola@example.com', transactionId: mine })).toString('base64url')}.${signature}`;
      const unsigned = `${Buffer.from(JSON.stringify({ ...claims, email: 'ola@example.com', transactionId: mine })).toString('base64url')}`;

      const tries: [string, Record<string, string>, number][] = [
        [ola, { formToken: olaToken, action: 'card-complete', transactionId: mine, cardSession: patSession }, 400],
        [ola, { formToken: olaToken, action: 'card-complete', transactionId: mine, cardSession: forged }, 400],
        [ola, { formToken: olaToken, action: 'card-complete', transactionId: mine, cardSession: unsigned }, 400],
        [ola, { formToken: olaToken, action: 'card-complete', transactionId: theirs, cardSession: patSession }, 400],
        [ola, { formToken: olaToken, action: 'card-complete', transactionId: mine, cardSession: '' }, 400],
        [pat, { formToken: olaToken, action: 'card-complete', transactionId: theirs, cardSession: patSession }, 403],
      ];
      for (const [path, fields, expected] of tries) {
        const res = await post(path, fields);
        assert.equal(res.status, expected, JSON.stringify(fields));
      }
      const noScript = await post(ola, {
        formToken: olaToken,
        action: 'card-complete',
        transactionId: mine,
        cardSession: '',
      });
      assert.match(await noScript.text(), /The card field needs JavaScript/);

      // A session of one of her purchases does not finish another of hers.
      const hers = await postJson(`${ola}/card/session`, { formToken: olaToken, transactionId: mine });
      processor.confirmSetup(processor.setups().slice(-1)[0]![0], '1111');
      assert.equal(
        (
          await post(ola, {
            formToken: olaToken,
            action: 'card-complete',
            transactionId: second,
            cardSession: hers.json.cardSession,
          })
        ).status,
        400,
      );

      for (const id of [mine, second, theirs]) {
        const method = await t.services.store.paymentMethods.find((await tx(id)).paymentMethodId!);
        assert.equal(method!.last4, '4242', `${id} keeps its card`);
      }
      // Its owner finishes it.
      assert.equal(
        (
          await post(pat, {
            formToken: patToken,
            action: 'card-complete',
            transactionId: theirs,
            cardSession: patSession,
          })
        ).status,
        303,
      );
      assert.equal((await t.services.store.paymentMethods.find((await tx(theirs)).paymentMethodId!))!.last4, '9999');

      // An hour later the session is stale (a new link is needed anyway).
      const late = await postJson(`${ola}/card/session`, { formToken: olaToken, transactionId: mine });
      clock.advance(3600_000);
      const fresh = await manageLink('ola@example.com');
      const freshToken = formToken((await open(fresh)).html);
      assert.equal(
        (
          await post(fresh, {
            formToken: freshToken,
            action: 'card-complete',
            transactionId: mine,
            cardSession: late.json.cardSession,
          })
        ).status,
        400,
      );
    });

    test("with opentill's own card form (the sandbox) the page is as before: card fields, no processor script, no JSON endpoints", async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 5 }],
      } as any);
      const id = await v.buy(plan.id, { email: 'quinn@example.com' });
      const path = await manageLink('quinn@example.com', 'sandbox');
      const page = await open(path);
      assert.match(section(page.html, id), /name="cardNumber"/);
      assert.doesNotMatch(page.html, /<script/);
      assert.doesNotMatch(page.csp!, /frame-src/);
      const token = formToken(page.html);
      assert.equal((await postJson(`${path}/card/session`, { formToken: token, transactionId: id })).status, 404);
      assert.equal(
        (await postJson(`${path}/authentication/session`, { formToken: token, transactionId: id })).status,
        404,
      );
    });
  });
}
