import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { FAULTS, faultGateway, moneyInvariants, type Fault } from '../helpers/fault-gateway.ts';
import { startTestApp, storeKinds, type TestApp, type TestVendor } from '../helpers/test-app.ts';
import { hiddenFields } from '../../support/checkout-form.ts';

/**
 * The fault matrix: checkout, charge-vaulted, refunds and renewals, each with a payment network
 * that throws after the money moved, times out, answers late, loses its answer, whose success is
 * followed by a failing database write, or that cannot be reached until after the reconciler ran;
 * under client retries with the same form or key, one after another and twenty at once; then the
 * reconciler. Afterwards the network moved money at most once per key, every movement has exactly
 * one ledger entry, no attempt is open, and every answer a client got was true.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const matrix: Record<string, Record<Fault, string>> = {};

for (const kind of await storeKinds()) {
  describe(`money under faults (${kind})`, () => {
    const clock = fixedClock(new Date('2031-03-10T09:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    let faults: ReturnType<typeof faultGateway>;

    before(async () => {
      // The fault gateway reaches the app's database (made by startTestApp) when a fault needs it.
      faults = faultGateway(() => t.services.database);
      t = await startTestApp(kind, {
        clock,
        gateways: { sandbox: faults.gateway },
        payments: { gatewayTimeoutMs: 150, reconcileGraceMs: 0 },
        billing: { leaseMs: 1, unknownRetryMs: 1 },
      });
      faults.use(sandboxGateway(t.services.database.kysely, () => new Date()));
      v = await t.newVendor('Faulty Networks Ltd');
    });
    after(async () => {
      await faults?.heal();
      await t?.close();
    });

    /** After the client is done: heal the database, let late answers land, reconcile, check the books. */
    async function settleAndCheck(label: string) {
      await faults.heal();
      await sleep(450);
      await t.services.reconciler.run();
      const inv = await moneyInvariants(t.services.database);
      assert.deepEqual(inv.chargesWithoutOneEntry, [], `${label}: every charge has one ledger entry`);
      assert.deepEqual(inv.refundsWithoutOneEntry, [], `${label}: every refund has one ledger entry`);
      assert.deepEqual(inv.entriesWithoutMovement, [], `${label}: no entry without money moved`);
      assert.deepEqual(inv.open, [], `${label}: no attempt left open`);
      return inv;
    }

    const movedFor = async (keyPrefix: string) =>
      (
        await t.services.database.kysely
          .selectFrom('charge_attempts')
          .innerJoin('sandbox_gateway_charges', 'sandbox_gateway_charges.attempt_id', 'charge_attempts.id')
          .select('charge_attempts.id')
          .where('charge_attempts.attempt_key', 'like', `${keyPrefix}%`)
          .where('sandbox_gateway_charges.outcome', '=', 'success')
          .execute()
      ).length;

    for (const fault of FAULTS) {
      test(`checkout, ${fault}: one form sent again, then twenty times at once, pays once and every page told the truth`, async () => {
        const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 30 }] });
        const page = await (await fetch(`${t.url}/sandbox/payment/product/${product.id}?country=US`)).text();
        const form = hiddenFields(page);
        const fields = {
          ...form,
          email: `checkout-${fault}@example.com`,
          country: 'US',
          cardNumber: '4242424242424242',
          cardExpiry: '12/34',
          cardCvc: '123',
        };
        const submit = async () => {
          const res = await fetch(`${t.url}/sandbox/payment/product/${product.id}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(fields),
          });
          return { status: res.status, html: await res.text() };
        };
        faults.arm(fault);
        const answers = [await submit()];
        for (let i = 0; i < 3; i++) answers.push(await submit());
        answers.push(...(await Promise.all(Array.from({ length: 20 }, submit))));
        await settleAndCheck(`checkout ${fault}`);
        answers.push(await submit());

        const said = (html: string) =>
          `${/<h1>([^<]*)/.exec(html)?.[1]} ${/role="alert"[^>]*>([^<]*)/.exec(html)?.[1] ?? ''}`;
        for (const a of answers)
          assert.ok([200, 202].includes(a.status), `checkout ${fault}: answer ${a.status} ${said(a.html)}`);
        assert.equal(answers.at(-1)!.status, 200, 'after reconciling, the form shows the receipt');
        assert.equal(
          faults.lastCvc(),
          '123',
          'the security code reached the network (it is checked there, never stored)',
        );
        assert.equal(await movedFor(`checkout:${form.token}`), 1, 'the card was charged once');
        const listed = (await v.api(`/v1/transactions/${encodeURIComponent(fields.email)}`)).json as any[];
        assert.equal(listed.length, 1, 'one purchase');
        // Every receipt shown names that purchase.
        for (const a of answers.filter((x) => x.status === 200))
          assert.match(a.html, new RegExp(listed[0].id.replace(/[^A-Z0-9_-]/g, '')));
        (matrix[`checkout ${kind}`] ??= {} as Record<Fault, string>)[fault] = summary(answers.map((a) => a.status));
      });

      test(`charge-vaulted, ${fault}: retries with one Idempotency-Key, one after another and twenty at once, charge once`, async () => {
        const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
        const id = await v.buy(product.id, { email: `vaulted-${fault}@example.com`, country: 'US' });
        const key = `charge-${fault}-${kind}`;
        const charge = () =>
          v.api(`/v1/charge-vaulted/${id}`, {
            method: 'POST',
            headers: { 'idempotency-key': key },
            body: { prices: [{ currency: 'USD', value: 12 }] },
          });
        faults.arm(fault);
        const answers = [await charge()];
        for (let i = 0; i < 3; i++) answers.push(await charge());
        answers.push(...(await Promise.all(Array.from({ length: 20 }, charge))));
        await settleAndCheck(`charge-vaulted ${fault}`);
        answers.push(await charge());

        for (const a of answers) {
          const ok =
            (a.status === 202 && a.json.status === 'PENDING') ||
            (a.status === 409 && ['PAYMENT_PENDING', 'REQUEST_IN_PROGRESS'].includes(a.json.error)) ||
            (a.status === 200 && a.json.status === 'SUCCESS');
          assert.ok(ok, `charge-vaulted ${fault}: ${a.status} ${a.text}`);
        }
        assert.equal(answers.at(-1)!.status, 200);
        assert.equal(answers.at(-1)!.json.status, 'SUCCESS');
        assert.equal(await movedFor(`vaulted:${v.vendor.id}:sandbox:${id}:${key}`), 1);
        const entries = (await v.api(`/v1/transaction/${id}`)).json.entries as any[];
        assert.equal(entries.filter((e) => e.type === 'VAULTED_PAYMENT').length, 1);
        (matrix[`charge-vaulted ${kind}`] ??= {} as Record<Fault, string>)[fault] = summary(
          answers.map((a) => a.status),
        );
      });

      test(`refund, ${fault}: retries with one Idempotency-Key and twenty at once refund once`, async () => {
        const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 25 }] });
        const id = await v.buy(product.id, { email: `refund-${fault}@example.com`, country: 'US' });
        const key = `refund-${fault}-${kind}`;
        const refund = () =>
          v.api(`/v1/refund-transaction/${id}`, { method: 'POST', headers: { 'idempotency-key': key } });
        faults.arm(fault);
        const answers = [await refund()];
        for (let i = 0; i < 3; i++) answers.push(await refund());
        answers.push(...(await Promise.all(Array.from({ length: 20 }, refund))));
        await settleAndCheck(`refund ${fault}`);
        answers.push(await refund());

        for (const a of answers) {
          const ok =
            (a.status === 202 && a.json.status === 'PENDING') ||
            (a.status === 409 && ['PAYMENT_PENDING', 'REQUEST_IN_PROGRESS'].includes(a.json.error)) ||
            a.status === 200;
          assert.ok(ok, `refund ${fault}: ${a.status} ${a.text}`);
        }
        assert.equal(answers.at(-1)!.status, 200);
        const tx = (await v.api(`/v1/transaction/${id}`)).json;
        assert.equal(tx.transactionStatus, 'TRANSACTION_STATUS_REFUNDED');
        assert.equal((tx.entries as any[]).filter((e) => e.type === 'ONETIME_PAYMENT_REFUND').length, 1);
        (matrix[`refund ${kind}`] ??= {} as Record<Fault, string>)[fault] = summary(answers.map((a) => a.status));
      });

      test(`renewal, ${fault}: the worker runs again and again; the period is charged and booked once`, async () => {
        const product = await v.product({
          type: 'SUBSCRIPTION',
          chargeFrequency: 'MONTHLY',
          prices: [{ currency: 'USD', value: 9 }],
        } as any);
        const id = await v.buy(product.id, { email: `renewal-${fault}@example.com`, country: 'US' });
        const subscription = async () =>
          ((await v.api(`/v1/transactions/renewal-${fault}@example.com`)).json as any[]).find((x) => x.id === id);
        const due = (await subscription()).nextCharge as string;
        clock.set(new Date(Date.parse(due) + 60_000));
        faults.arm(fault);
        const runs = [];
        for (let i = 0; i < 4; i++) {
          runs.push(
            await t.services.billing
              .runDue({ sandboxVendorId: v.vendor.id })
              .catch((err: Error) => ({ error: err.message })),
          );
          if (i === 1) await faults.heal();
          await sleep(fault === 'late-answer' ? 450 : 5);
          // Time passes between the worker's runs: a lease held over an unknown answer runs out.
          clock.advance(60_000);
        }
        await settleAndCheck(`renewal ${fault}`);
        const tx = (await v.api(`/v1/transaction/${id}`)).json;
        assert.equal(
          (tx.entries as any[]).filter((e) => e.type === 'SUBSCRIPTION_PAYMENT').length,
          2,
          'the first payment and one renewal',
        );
        assert.equal(tx.transactionStatus, 'SUBSCRIPTION_STATUS_ACTIVE');
        assert.ok(Date.parse((await subscription()).nextCharge) > Date.parse(due), 'moved to the next period');
        clock.set(new Date('2031-03-10T09:00:00.000Z'));
        (matrix[`renewal ${kind}`] ??= {} as Record<Fault, string>)[fault] = runs
          .map((r) => ('error' in r ? 'error' : `${r.renewed}r/${r.unknown}u`))
          .join(' ');
      });
    }

    test('charge-vaulted after a void: the same key charges again only for the same amount, and a refused other amount does not take the key', async () => {
      const product = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const id = await v.buy(product.id, { email: `vaulted-void-${kind}@example.com`, country: 'US' });
      const charge = (value: number) =>
        v.api(`/v1/charge-vaulted/${id}`, {
          method: 'POST',
          headers: { 'idempotency-key': 'after-void' },
          body: { prices: [{ currency: 'USD', value }] },
        });
      faults.arm('network-down');
      assert.equal((await charge(12)).status, 202);
      await settleAndCheck('charge-vaulted after a void');
      const first = await t.services.store.chargeAttempts.findByKey(`vaulted:${v.vendor.id}:sandbox:${id}:after-void`);
      assert.equal(first?.status, 'VOIDED', 'the network never had it');
      const other = await charge(13);
      assert.equal(other.status, 409, other.text);
      assert.equal(other.json.error, 'IDEMPOTENCY_CONFLICT');
      const same = await charge(12);
      assert.equal(same.status, 200, same.text);
      assert.equal(same.json.status, 'SUCCESS');
      assert.equal(await movedFor(`vaulted:${v.vendor.id}:sandbox:${id}:after-void`), 1);
    });

    test('the fault matrix', () => {
      for (const [flow, row] of Object.entries(matrix))
        process.stdout.write(`# fault matrix ${flow}: ${JSON.stringify(row)}\n`);
    });
  });
}

/** Answer statuses and how many of each, e.g. "202x1 409x3 200x21". */
function summary(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${s}x${n}`).join(' ');
}
