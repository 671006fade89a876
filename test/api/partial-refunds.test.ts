import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Refunding part of a payment through the API (issue 32; docs/decisions.md §6a): opentill's own optional
 * body `{amount, currency, entryId, reason}` on the original call. Without a body the call is the
 * original API's: everything left of the latest payment. The parts never take back more than was paid,
 * each adds up, and all of them together are exactly minus the payment.
 */
const clock = fixedClock(new Date('2030-05-10T09:00:00.000Z'));
const tick = () => clock.advance(1000);

type Entry = { id: string; type: string; amountTotal: string; taxAmount: string; income: string };

for (const kind of await storeKinds()) {
  describe(`partial refunds (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    /** A one-time payment of 40 EUR net + 19% VAT (47.60), bought in Germany. */
    async function paid(email: string) {
      tick();
      const product = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 45 },
          { currency: 'EUR', value: 40 },
        ],
      });
      return v.buy(product.id, { email, country: 'DE' });
    }
    const read = async (id: string) =>
      (await v.api(`/v1/transaction/${id}`)).json as { transactionStatus: string; entries: Entry[] };
    const refund = (id: string, body?: unknown, key?: string) =>
      v.api(`/v1/refund-transaction/${id}`, {
        method: 'POST',
        ...(body === undefined ? {} : { body }),
        headers: key ? { 'idempotency-key': key } : {},
      });
    const minor = (text: string) => Math.round(Number(text) * 100);

    test('a payment refunded in parts: each part a record, refundable while something is left, the status unchanged until all of it is back', async () => {
      const id = await paid('parts@example.com');
      tick();
      const first = await refund(id, { amount: 10, reason: 'Charged for a seat not used' });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.length, 1);
      assert.equal(first.json[0].amountTotal, 10);
      assert.equal(first.json[0].currency, 'EUR');
      assert.equal(first.json[0].refundable, true, 'something is left of the payment');
      assert.equal(
        (await read(id)).transactionStatus,
        'ONE_TIME_PAYMENT_STATUS_PAID',
        'a part refunded changes no status',
      );
      const feed = ((await v.api('/v1/changed-transactions')).json as { id: string; changeStatus: string }[]).find(
        (x) => x.id === id,
      );
      assert.equal(feed?.changeStatus, 'CHANGED_STATUS_REFUNDED', 'the vendor sees the refund');

      tick();
      const second = await refund(id, { amount: '20.55', currency: 'eur' });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.json[0].amountTotal, 20.55);
      tick();
      const rest = await refund(id);
      assert.equal(rest.status, 200, rest.text);
      assert.equal(rest.json[0].amountTotal, 17.05, 'without a body: what is left');
      assert.equal(rest.json[0].refundable, false);
      const after = await read(id);
      assert.equal(
        after.transactionStatus,
        'TRANSACTION_STATUS_REFUNDED',
        'all of it back: refunded, as a refund of everything always was',
      );
      const [payment, ...refunds] = after.entries;
      assert.equal(refunds.length, 3);
      for (const field of ['amountTotal', 'taxAmount', 'income'] as const) {
        assert.equal(
          refunds.reduce((sum, r) => sum + minor(r[field]), 0),
          -minor(payment![field]),
          `${field}: the refunds are exactly minus the payment`,
        );
      }
      for (const r of refunds)
        assert.equal(minor(r.amountTotal), minor(r.taxAmount) + minor(r.amountTotal) - minor(r.taxAmount));
      const again = await refund(id, { amount: 1 });
      assert.equal(again.status, 400);
      assert.equal(again.json.error, 'INVALID_STATE');
    });

    test('refusals change nothing: zero, more than is left, another currency, too many decimals, an unknown field, a payment that is not one', async () => {
      const id = await paid('refused@example.com');
      const before = await read(id);
      for (const [body, error, message] of [
        [{ amount: 0 }, 'INVALID_INPUT', /amount/],
        [{ amount: 47.61 }, 'INVALID_INPUT', /more than is left/],
        [{ amount: 10, currency: 'USD' }, 'INVALID_INPUT', /EUR/],
        [{ amount: 10.001 }, 'INVALID_INPUT', /decimals/],
        [{ amout: 10 }, 'INVALID_INPUT', /unknown field "amout"/],
        [{ amount: 10, partial: true }, 'INVALID_INPUT', /unknown field "partial"/],
      ] as const) {
        const res = await refund(id, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.json.error, error);
        assert.match(res.json.message, message);
      }
      const unknownPayment = await refund(id, { amount: 1, entryId: 'TC-EN_nothing' });
      assert.equal(unknownPayment.status, 404);
      assert.deepEqual(await read(id), before, 'nothing changed');
      const cancelled = await v.api(`/v1/cancel-subscription/${id}`, { method: 'POST', body: { reason: 'x' } });
      assert.equal(cancelled.status, 400, 'cancel refuses a field it does not know too');
      assert.match(cancelled.json.message, /unknown field "reason"/);
    });

    test('another payment than the latest, named by its entry: the subscription runs on, its next charge unchanged', async () => {
      tick();
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 30 }],
      } as never);
      const id = await v.buy(plan.id, { email: 'earlier@example.com', country: 'US' });
      clock.advance(31 * 86_400_000);
      await t.services.billing.runDue({ sandboxVendorId: v.vendor.id });
      const renewed = await read(id);
      assert.equal(renewed.entries.length, 2);
      const next = ((await v.api('/v1/transactions/earlier%40example.com')).json as { nextCharge: string }[])[0]!
        .nextCharge;
      const first = await refund(id, { amount: 5, entryId: renewed.entries[0]!.id });
      assert.equal(first.status, 200, first.text);
      const after = await read(id);
      assert.equal(after.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(
        ((await v.api('/v1/transactions/earlier%40example.com')).json as { nextCharge: string }[])[0]!.nextCharge,
        next,
      );
      const refundEntry = after.entries.find((e) => e.type === 'SUBSCRIPTION_REFUND')!;
      assert.equal(refundEntry.amountTotal, '-5.00');
      const rest = await refund(id, { entryId: renewed.entries[0]!.id });
      assert.equal(rest.json[0].amountTotal, 25, 'the rest of the earlier payment');
      assert.equal(
        (await read(id)).transactionStatus,
        'SUBSCRIPTION_STATUS_ACTIVE',
        'an earlier period refunded in full ends nothing',
      );
      const latest = await refund(id);
      assert.equal(latest.status, 200);
      assert.equal(latest.json[0].amountTotal, 30, 'without a body: the latest payment, all of it');
      assert.equal((await read(id)).transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
    });

    test('the same Idempotency-Key with the same body replays the refund; with another amount it is a conflict', async () => {
      const id = await paid('replay@example.com');
      const first = await refund(id, { amount: 12 }, 'part-12');
      const replay = await refund(id, { amount: 12 }, 'part-12');
      assert.equal(replay.status, 200);
      assert.equal(replay.text, first.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      const other = await refund(id, { amount: 13 }, 'part-12');
      assert.equal(other.status, 409);
      assert.equal(other.json.error, 'IDEMPOTENCY_CONFLICT');
      assert.equal((await read(id)).entries.length, 2, 'one refund');
    });

    test('twenty partial refunds at once, each of 10 of 47.60: four go through, never more than was paid', async () => {
      const id = await paid('crowd@example.com');
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          for (;;) {
            const res = await refund(id, { amount: 10 }, `crowd-${i}`);
            // One refund is confirmed at a time; the others are told to retry.
            if (res.status === 409 && res.json.error === 'PAYMENT_PENDING') continue;
            return res;
          }
        }),
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 4);
      assert.ok(
        answers.every((a) => a.status === 200 || (a.status === 400 && /more than is left/.test(a.json.message))),
      );
      const refunds = (await read(id)).entries.filter((e) => e.type === 'ONETIME_PAYMENT_REFUND');
      assert.equal(
        refunds.reduce((sum, r) => sum + minor(r.amountTotal), 0),
        -4000,
      );
    });

    test('the credit note of a part refunded is of that part', async () => {
      const id = await paid('credit-note@example.com');
      const res = await refund(id, { amount: 11.9 });
      const pdf = Buffer.from(
        await (await fetch(res.json[0].invoiceLink.replace('http://opentill.test', t.url))).arrayBuffer(),
      );
      const text = await pdfText(pdf);
      assert.match(text, /Credit note/);
      assert.match(text, /Total credited ?11,90 €/);
      assert.match(text, /partial refund/, 'the line says it is part of the payment');
      assert.doesNotMatch(text, /47,60/, 'not the whole payment');
    });
  });
}
