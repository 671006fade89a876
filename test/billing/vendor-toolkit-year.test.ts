import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import type { LedgerEntry } from '../../src/domain/model.ts';
import { hiddenFields } from '../../support/checkout-form.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Issue 37's "done when": a year in one vendor's sandbox, over HTTP (the hosted checkout, /v1, the
 * sandbox clock), with the billing worker's catch-up after each move of the clock. Four customers:
 * a monthly plan with a 3-month 20% coupon; 5 seats raised to 8 and lowered to 6; a licence activated
 * on 3 machines of 3, the 4th refused; a monthly plan paused for 2 months. What was charged, invoiced
 * and written in the ledger is compared with figures worked out by hand below (not by the code).
 * Buyers are in Hong Kong, paying USD (the vendor converts to no other currency): no tax, so each
 * total is its net.
 */
const START = '2031-01-01T00:00:00.000Z';
const END = '2031-12-31T12:00:00.000Z';
// Real time stands still; only the vendor's sandbox clock moves.
const clock = fixedClock(new Date(START));

/** Each month's 1st at midnight and 24th at 03:00 (when the 8- and then 6-seat plan renews), and the scripted days. */
function moments(): string[] {
  const at = new Set<string>();
  for (let m = 0; m < 12; m++) {
    at.add(new Date(Date.UTC(2031, m, 1)).toISOString());
    at.add(new Date(Date.UTC(2031, m, 24, 3)).toISOString());
  }
  for (const day of ['2031-01-11T00:00:00.000Z', '2031-03-15T00:00:00.000Z', '2031-06-10T00:00:00.000Z', END])
    at.add(day);
  return [...at].filter((a) => a > START).sort();
}

for (const kind of await storeKinds()) {
  describe(`a scripted year of the vendor's toolkit in the sandbox (${kind})`, () => {
    let t: TestApp;
    let v: TestVendor;
    /** The year's subscriptions and purchase, and the licence key, as the tests below (in order) learn them. */
    const ids = { coupon: '', team: '', team8: '', team6: '', app: '', paused: '' };
    let key = '';
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)), 'Year Software');

    const product = async (body: Record<string, unknown>) => {
      const res = await v.api('/v1/products', { method: 'POST', body });
      assert.equal(res.status, 201, res.text);
      return res.json.id as string;
    };
    /** The hosted checkout as a browser: the page (with the query's prefill), then the form sent with the test card. */
    async function checkout(productId: string, email: string, query: Record<string, string> = {}) {
      const url = `${t.url}/sandbox/payment/product/${productId}?${new URLSearchParams({ country: 'HK', ...query })}`;
      const page = await fetch(url);
      assert.equal(page.status, 200, `${productId}: ${page.status}`);
      const shown = await page.text();
      if (query.coupon) assert.match(shown, /20% off for 3 months, then \$10\.00 every month\./);
      const form = hiddenFields(shown);
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ...form,
          ...query,
          email,
          country: 'HK',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        }),
      });
      const html = await res.text();
      assert.ok(res.status === 200 || res.status === 303, `${res.status}: ${html.slice(0, 400)}`);
      const listed = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as { id: string }[];
      assert.equal(listed.length, 1, `one purchase of ${email}`);
      return { id: listed[0]!.id, html };
    }
    const moveTo = async (to: string) => {
      const moved = await v.api('/v1/clock/advance', { body: { to } });
      assert.equal(moved.status, 200, moved.text);
      // What the billing worker does after a move, in the test's own time.
      await t.services.sandboxClock.catchUp(v.scope());
    };
    const payments = async (id: string) =>
      (await t.services.store.entries.listForTransaction(id)).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT');
    const ledger = (entries: LedgerEntry[]) =>
      entries.map((e) => [e.createdAt, e.netMinor, e.discountMinor ?? 0, e.amountTotalMinor]);

    test('1 January: a coupon, 5 seats, a licence and a plan are bought at the hosted checkout', async () => {
      // The vendor sells in its own prices only (no conversion to the buyer's HKD), so the figures are USD.
      await t.services.catalog.updateVendorSettings(v.vendor.id, { allowConversion: false });
      // January 1st: four purchases.
      const monthly = await product({
        name: 'Monthly',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
      });
      await t.services.coupons.create(v.scope(), {
        productId: monthly,
        code: 'YEAR20',
        percentOff: 20,
        duration: 'repeating',
        durationPeriods: 3,
      });
      const seats = await product({
        name: 'Team',
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 10 }],
        seats: { minQuantity: 1, maxQuantity: 20 },
      });
      const licensed = await product({
        name: 'Desktop App',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 30 }],
        issuesLicences: true,
        activationLimit: 3,
      });

      ids.coupon = (await checkout(monthly, 'coupon@year.test', { coupon: 'YEAR20' })).id;
      ids.team = (await checkout(seats, 'team@year.test', { quantity: '5' })).id;
      const app = await checkout(licensed, 'licence@year.test');
      ids.app = app.id;
      ids.paused = (await checkout(monthly, 'pause@year.test')).id;
      key = /data-testid="licence">([^<]+)</.exec(app.html)?.[1] ?? '';
      assert.ok(key, 'the receipt shows the key');
    });

    test('the licence is activated on 3 machines of its 3, with the key alone; the 4th is refused', async () => {
      const activate = (instanceName: string) =>
        v.api(`/v1/licences/${encodeURIComponent(key)}/activate`, {
          method: 'POST',
          body: { instanceName },
          authorization: '',
        });
      for (const machine of ['laptop', 'desktop', 'build-server']) {
        const res = await activate(machine);
        assert.equal(res.status, 200, res.text);
      }
      const fourth = await activate('second-laptop');
      assert.equal(fourth.status, 400, fourth.text);
      assert.match(fourth.json.message, /limit/);
      const read = await v.api(`/v1/licences/${encodeURIComponent(key)}`, { authorization: '' });
      assert.equal(read.json.instances.length, 3);
    });

    test('through the year: 8 seats on 11 January, a 2-month pause asked on 15 March, 6 seats on 10 June', async () => {
      // The year, moment by moment; the scripted changes on their days.
      for (const at of moments()) {
        await moveTo(at);
        if (at === '2031-01-11T00:00:00.000Z') {
          const raised = await v.api(`/v1/update-quantity/${ids.team}`, { body: { quantity: 8 } });
          assert.equal(raised.status, 200, raised.text);
          // 21 of January's 31 days of $50 are left; at $80 for 31 days that is 50/80 × 21 = 13.125 days:
          // 13 days 3 hours from 11 January 00:00.
          assert.deepEqual([raised.json.effective, raised.json.nextCharge], ['NOW', '2031-01-24T03:00:00.000Z']);
          ids.team8 = raised.json.id;
        }
        if (at === '2031-03-15T00:00:00.000Z') {
          const pause = await v.api(`/v1/pause-subscription/${ids.paused}`, {
            body: { resumeAt: '2031-06-01T00:00:00.000Z' },
          });
          assert.equal(pause.status, 200, pause.text);
          // March is paid: the pause starts when it ends, on 1 April, for two months.
          assert.deepEqual(pause.json.pause, {
            startsAt: '2031-04-01T00:00:00.000Z',
            resumesAt: '2031-06-01T00:00:00.000Z',
          });
        }
        if (at === '2031-06-10T00:00:00.000Z') {
          const lowered = await v.api(`/v1/update-quantity/${ids.team8}`, { body: { quantity: 6 } });
          assert.equal(lowered.status, 200, lowered.text);
          // Fewer seats from the end of the paid period (24 May 03:00 to 24 June 03:00).
          assert.deepEqual(
            [lowered.json.effective, lowered.json.nextCharge],
            ['PERIOD_END', '2031-06-24T03:00:00.000Z'],
          );
          ids.team6 = lowered.json.id;
        }
      }
    });

    const first = (month: number) => new Date(Date.UTC(2031, month, 1)).toISOString();
    const on24th = (month: number) => new Date(Date.UTC(2031, month, 24, 3)).toISOString();
    const months = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

    test('the ledger entries of the year are exactly those worked out by hand', async () => {
      // The coupon: 20% off $10 for 3 periods (800 net, 200 off), then $10; paid on the 1st, 12 times.
      assert.deepEqual(ledger(await payments(ids.coupon)), [
        ...months(0, 2).map((m) => [first(m), 800, 200, 800]),
        ...months(3, 11).map((m) => [first(m), 1000, 0, 1000]),
      ]);
      // The seats: 5 × $10 on 1 January; replaced on 11 January by 8 seats, first charged on 24 January
      // 03:00 (nothing charged on the 11th), 8 × $10 monthly until 24 May; from 24 June 6 × $10.
      assert.deepEqual(ledger(await payments(ids.team)), [[START, 5000, 0, 5000]]);
      assert.deepEqual(
        ledger(await payments(ids.team8)),
        months(0, 4).map((m) => [on24th(m), 8000, 0, 8000]),
      );
      assert.deepEqual(
        ledger(await payments(ids.team6)),
        months(5, 11).map((m) => [on24th(m), 6000, 0, 6000]),
      );
      // The licence: one payment of $30.
      assert.deepEqual(
        ledger(
          (await t.services.store.entries.listForTransaction(ids.app)).filter((e) => e.type === 'ONETIME_PAYMENT'),
        ),
        [[START, 3000, 0, 3000]],
      );
      // The pause: January to March paid, April and May paused, charged again on 1 June (the resume)
      // and on each 1st after: 3 + 7 = 10 payments of $10.
      assert.deepEqual(ledger(await payments(ids.paused)), [
        ...months(0, 2).map((m) => [first(m), 1000, 0, 1000]),
        ...months(5, 11).map((m) => [first(m), 1000, 0, 1000]),
      ]);
    });

    /** Every ledger entry of the year's purchases. */
    const allEntries = async () =>
      (await Promise.all(Object.values(ids).map((id) => t.services.store.entries.listForTransaction(id)))).flat();

    test('the year in all: 36 payments of 1114.00, each charged once to the card and invoiced in order', async () => {
      // 12 + 1 + 5 + 7 + 1 + 10 = 36 payments; 114.00 + 50.00 + 400.00 + 420.00 + 30.00 + 100.00 = 1114.00.
      const all = await allEntries();
      assert.equal(all.length, 36, 'nothing but the payments: no refund, no credit');
      assert.equal(
        all.reduce((sum, e) => sum + e.amountTotalMinor, 0),
        111400,
      );

      // Charged: one sandbox card charge per payment, of the same amount.
      const charges = await t.services.database.kysely.selectFrom('sandbox_gateway_charges').selectAll().execute();
      const charged = (charges as unknown as { amount_minor: number; status?: string }[]).map((c) =>
        Number(c.amount_minor),
      );
      assert.deepEqual(
        charged.sort((a, b) => a - b),
        all.map((e) => e.amountTotalMinor).sort((a, b) => a - b),
      );

      // Invoiced: one invoice per payment, numbered 1 to 36 in the order they were paid; the coupon's
      // shows the list price and its discount; each document is served.
      const byTime = [...all].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      assert.deepEqual(
        byTime.map((e) => e.invoiceNumber).sort((a, b) => a! - b!),
        Array.from({ length: 36 }, (_, i) => i + 1),
      );
      const firstCoupon = (await payments(ids.coupon))[0]!;
      const invoice = await t.services.invoices.find('sandbox', firstCoupon.hashId);
      assert.deepEqual(
        [invoice.kind, invoice.item.unitNetMinor, invoice.discountMinor, invoice.netMinor, invoice.totalMinor],
        ['INVOICE', 1000, 200, 800, 800],
      );
      const pdf = await fetch(`${t.url}/sandbox/invoice/${firstCoupon.hashId}`);
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    });

    test("at the year's end each stands as the API says: the replaced seat plans ended, the others due in January", async () => {
      // (GET /v1/transaction/{id} has no nextCharge, as the seed's; the list by e-mail has.)
      const status = async (id: string) => {
        const email = (await v.api(`/v1/transaction/${id}`)).json.email as string;
        const listed = (await v.api(`/v1/transactions/${encodeURIComponent(email)}`)).json as Record<string, unknown>[];
        const tx = listed.find((x) => x.id === id)!;
        return [tx.transactionStatus, tx.nextCharge ?? null];
      };
      assert.deepEqual(await Promise.all([ids.coupon, ids.team, ids.team8, ids.team6, ids.paused].map(status)), [
        ['SUBSCRIPTION_STATUS_ACTIVE', '2032-01-01T00:00:00.000Z'],
        ['SUBSCRIPTION_STATUS_CANCELLED', null],
        ['SUBSCRIPTION_STATUS_CANCELLED', null],
        ['SUBSCRIPTION_STATUS_ACTIVE', '2032-01-24T03:00:00.000Z'],
        ['SUBSCRIPTION_STATUS_ACTIVE', '2032-01-01T00:00:00.000Z'],
      ]);
    });

    test('each seat invoice names its seats: 8 (then 6) at $10, not 1 at the whole price', async () => {
      const seatPayments = [...(await payments(ids.team8)), ...(await payments(ids.team6))];
      assert.equal(seatPayments.length, 12);
      for (const entry of seatPayments) {
        const { item } = await t.services.invoices.find('sandbox', entry.hashId);
        assert.deepEqual([item.quantity, item.unitNetMinor], [entry.netMinor / 1000, 1000]);
      }
    });
  });
}
