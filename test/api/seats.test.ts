import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * Seats (docs/decisions.md §39): a product sold per seat, its range and volume tiers through the
 * product API, a purchase's quantity priced as tier unit price × quantity, renewals at today's tier
 * price × the subscription's quantity, and the quantity as an added field of the seed's answers.
 * Customers are in the US without a ZIP code: no tax, net = total.
 */
for (const kind of await storeKinds()) {
  describe(`seats (${kind})`, () => {
    const clock = fixedClock(new Date('2031-05-01T10:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)));

    /** $10 a seat, $8 a seat from 10 seats on (every seat), 1 to 50 seats; monthly. */
    const team = async (extra: Record<string, unknown> = {}, vendor = v) => {
      const res = await vendor.api('/v1/products', {
        body: {
          name: 'Team',
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          prices: [{ currency: 'USD', value: 10 }],
          seats: {
            minQuantity: 1,
            maxQuantity: 50,
            tiers: [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8 }] }],
          },
          ...extra,
        },
      });
      assert.equal(res.status, 201, res.text);
      return res.json as { id: string; seats: unknown };
    };
    const read = async (id: string) => (await v.api(`/v1/transaction/${id}`)).json;
    const ledger = (id: string) => t.services.store.entries.listForTransaction(id);

    test('the product API keeps a per-seat product’s range and tiers, and a product not sold per seat has seats null', async () => {
      const product = await team();
      const expected = {
        minQuantity: 1,
        maxQuantity: 50,
        tiers: [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 8, valueS: '8.00' }] }],
      };
      assert.deepEqual(product.seats, expected);
      assert.deepEqual((await v.api(`/v1/products/${product.id}`)).json.seats, expected);
      const plain = await v.api('/v1/products', {
        body: { name: 'Plain', type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] },
      });
      assert.equal(plain.json.seats, null);
      const off = await v.api(`/v1/products/${product.id}`, { body: { seats: null } });
      assert.equal(off.status, 200, off.text);
      assert.equal(off.json.seats, null);
    });

    test('seats that cannot be sold are refused with 400 and change nothing', async () => {
      const product = await team();
      const usd = (value: number) => [{ currency: 'USD', value }];
      const bad: [unknown, RegExp][] = [
        [{ minQuantity: 5, maxQuantity: 4 }, /minQuantity must not be above/],
        [{ minQuantity: 0 }, /./],
        [{ tiers: [{ fromQuantity: 1, prices: usd(8) }] }, /start above/],
        [
          {
            tiers: [
              { fromQuantity: 10, prices: usd(8) },
              { fromQuantity: 10, prices: usd(7) },
            ],
          },
          /ascend/,
        ],
        [{ maxQuantity: 9, tiers: [{ fromQuantity: 10, prices: usd(8) }] }, /above seats.maxQuantity/],
        [{ tiers: [{ fromQuantity: 10, prices: [{ currency: 'EUR', value: 8 }] }] }, /USD|currencies/],
        [{ seatCount: 3 }, /./],
      ];
      for (const [seats, message] of bad) {
        const res = await v.api(`/v1/products/${product.id}`, { body: { seats } });
        assert.equal(res.status, 400, `${JSON.stringify(seats)}: ${res.text}`);
        assert.match(res.json.message, message);
      }
      // A price in a currency the tiers lack would change the buyer's currency with the quantity.
      const eur = await v.api(`/v1/products/${product.id}`, {
        body: {
          prices: [
            { currency: 'USD', value: 10 },
            { currency: 'EUR', value: 9 },
          ],
        },
      });
      assert.equal(eur.status, 400, eur.text);
      assert.deepEqual((await v.api(`/v1/products/${product.id}`)).json.seats.tiers[0].fromQuantity, 10);
    });

    test('9 seats cost 9 × $10 and 10 seats 10 × $8: every seat at the tier the total falls in', async () => {
      const product = await team();
      const nine = await v.buy(product.id, { email: 'nine@example.com', quantity: 9 });
      const ten = await v.buy(product.id, { email: 'ten@example.com', quantity: 10 });
      const [a, b] = [await read(nine), await read(ten)];
      assert.deepEqual([a.netPrice, a.netPriceInUSD, a.quantity], [90, 90, 9]);
      assert.deepEqual([b.netPrice, b.netPriceInUSD, b.quantity], [80, 80, 10]);
      assert.deepEqual(
        (await ledger(ten)).map((e) => e.amountTotalMinor),
        [8000],
      );
      // A quantity of none is the product's minimum; the list by e-mail says it too.
      const one = await v.buy(product.id, { email: 'one@example.com' });
      assert.equal((await read(one)).quantity, 1);
      const listed = (await v.api('/v1/transactions/ten@example.com')).json as { quantity: number }[];
      assert.deepEqual(
        listed.map((l) => l.quantity),
        [10],
      );
    });

    test('a quantity out of the range, not whole, or above 1 on a product not sold per seat is refused and charges nothing', async () => {
      const product = await team({ seats: { minQuantity: 3, maxQuantity: 20 } });
      const plain = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 5 }] });
      const cases: [string, unknown][] = [
        [product.id, 2],
        [product.id, 21],
        [product.id, 2.5],
        [product.id, 'many'],
        [plain.id, 2],
      ];
      for (const [id, quantity] of cases) {
        await assert.rejects(
          v.buy(id, { email: 'range@example.com', quantity }),
          (err: Error) => /quantity|per seat/.test(err.message),
          `${id} × ${String(quantity)}`,
        );
      }
      assert.deepEqual((await v.api('/v1/transactions/range@example.com')).json, []);
      const three = await v.buy(product.id, { email: 'range@example.com' });
      assert.equal((await read(three)).quantity, 3, 'none given is the minimum');
      assert.equal((await read(await v.buy(plain.id, { email: 'plain@example.com', quantity: 1 }))).quantity, 1);
    });

    test('a renewal charges today’s tier unit price × the subscription’s quantity', async () => {
      clock.set(new Date('2031-05-01T10:00:00.000Z'));
      // A vendor of its own: the other tests' subscriptions are not due with it.
      const w = await t.newVendor('Renewals');
      const product = await team({}, w);
      const id = await w.buy(product.id, { email: 'renew@example.com', quantity: 12 });
      // The vendor raises the 10+ tier to $9 and the base price to $11: the renewal pays 12 × $9.
      const update = await w.api(`/v1/products/${product.id}`, {
        body: {
          prices: [{ currency: 'USD', value: 11 }],
          seats: {
            minQuantity: 1,
            maxQuantity: 50,
            tiers: [{ fromQuantity: 10, prices: [{ currency: 'USD', value: 9 }] }],
          },
        },
      });
      assert.equal(update.status, 200, update.text);
      clock.set(new Date('2031-06-01T10:00:00.000Z'));
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: w.vendor.id })).renewed, 1);
      assert.deepEqual(
        (await ledger(id)).map((e) => e.amountTotalMinor),
        [9600, 10800],
      );
    });

    test('the invoice’s line says the seats and the unit price: 12 × $8.00 = $96.00', async () => {
      const product = await team();
      const id = await v.buy(product.id, { email: 'invoice@example.com', quantity: 12 });
      const [entry] = await ledger(id);
      const res = await fetch(`${t.url}/sandbox/invoice/${entry!.hashId}`);
      assert.equal(res.status, 200);
      const text = await pdfText(Buffer.from(await res.arrayBuffer()));
      assert.match(text, /Team\s*12\s*\$8\.00\s*\$96\.00/);
    });
  });
}
