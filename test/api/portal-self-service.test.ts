import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { manageVisit } from '../helpers/manage-visit.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * What a customer does on their management page (docs/decisions.md §34): cancel after a confirmation,
 * with a reason, at the period's end (now only where the vendor allows it); edit the billing details,
 * checked as the checkout checks them, re-pricing renewals when the reverse charge starts or stops;
 * switch plans the vendor allows, an upgrade now and a downgrade at the period's end. Each form is
 * safe to send twice, and none reaches another customer's purchase.
 */
const DAY = 86_400_000;

for (const kind of await storeKinds()) {
  describe(`customer self-service (${kind})`, () => {
    const start = new Date('2030-05-02T08:00:00.000Z');
    const clock = fixedClock(start);
    beforeEach(() => clock.set(start));
    let t: TestApp;
    let v: TestVendor;
    // A seller in France: a German business buyer with a valid VAT ID pays no VAT (reverse charge).
    useTestApp(kind, { clock, env: { SELLER_COUNTRY: 'FR' } }, (app, vendor) => ((t = app), (v = vendor)), 'Acme');

    const monthly = (name: string, usd: number) =>
      v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name,
        prices: [{ currency: 'USD', value: usd }],
      } as any);
    const { manageLink, open, formToken, post } = manageVisit(
      () => t,
      () => v,
    );
    const tx = async (id: string) => (await t.services.store.transactions.find(v.scope(), id))!;
    /** Opens the customer's page and posts one of its forms. */
    const act = async (email: string, fields: Record<string, string>) => {
      const path = await manageLink(email);
      const token = formToken((await open(path)).html);
      return {
        path,
        res: await post(path, { formToken: token, ...fields }),
        again: () => post(path, { formToken: token, ...fields }),
      };
    };

    test('cancel asks first, keeps the reason, ends at the period end, and a second send changes nothing', async () => {
      const id = await v.buy((await monthly('Team', 9)).id, { email: 'ann@example.com' });
      const path = await manageLink('ann@example.com');
      const confirm = await open(`${path}?page=cancel&id=${id}`);
      assert.equal(confirm.status, 200);
      assert.match(confirm.html, /Cancel Team\?/);
      assert.match(confirm.html, /Your subscription stays active until June 2, 2030/);
      assert.doesNotMatch(confirm.html, /name="when"/, 'no choice of now unless the vendor allows it');
      assert.equal((await tx(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE', 'showing the page cancels nothing');

      const { res, again } = await act('ann@example.com', {
        action: 'cancel',
        transactionId: id,
        reason: '  Too expensive\nfor us ',
      });
      assert.equal(res.status, 303);
      const cancelled = await tx(id);
      assert.equal(cancelled.status, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(cancelled.nextCharge, '2030-06-02T08:00:00.000Z');
      assert.equal(cancelled.cancelReason, 'Too expensive for us');
      assert.equal((await again()).status, 303);
      assert.deepEqual(await tx(id), cancelled);
    });

    test('cancel now only where the vendor allows it: refused otherwise, then ended at once', async () => {
      const id = await v.buy((await monthly('Pro', 20)).id, { email: 'bob@example.com' });
      const refused = await act('bob@example.com', { action: 'cancel', transactionId: id, when: 'now' });
      assert.equal(refused.res.status, 400);
      assert.match(await refused.res.text(), /end of the paid period only/);
      assert.equal((await tx(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE');

      await t.services.portal.setCancelNow(v.vendor.id, true);
      const path = await manageLink('bob@example.com');
      assert.match((await open(`${path}?page=cancel&id=${id}`)).html, /name="when" value="now"/);
      const { res } = await act('bob@example.com', { action: 'cancel', transactionId: id, when: 'now' });
      assert.equal(res.status, 303);
      const ended = await tx(id);
      assert.deepEqual(
        [ended.status, ended.nextCharge, ended.whoCanceled],
        ['SUBSCRIPTION_STATUS_CANCELLED', null, 'CUSTOMER'],
      );
      await t.services.portal.setCancelNow(v.vendor.id, false);
    });

    test('billing details: saved for the next invoices; a VAT ID starts and stops the reverse charge of renewals', async () => {
      const id = await v.buy((await monthly('Studio', 10)).id, {
        email: 'cat@example.com',
        country: 'DE',
        currency: 'USD',
      });
      const before = await tx(id);
      assert.equal(before.taxMinor, 190, 'German VAT at 19%');
      const bad = await act('cat@example.com', {
        action: 'billing',
        transactionId: id,
        name: 'Cat Weber',
        company: 'Weber GmbH',
        address: 'Hauptstr. 1\n10115 Berlin',
        vatId: 'FR123',
      });
      assert.equal(bad.res.status, 400);
      const page = await bad.res.text();
      assert.match(page, /This VAT ID is not valid for your country/);
      assert.match(page, /id="vatId"[^>]*value="FR123"[^>]*aria-invalid="true"/);
      assert.deepEqual(await tx(id), before, 'nothing saved');

      const noCompany = await act('cat@example.com', {
        action: 'billing',
        transactionId: id,
        vatId: 'DE123456789',
        address: 'Hauptstr. 1',
      });
      assert.equal(noCompany.res.status, 400);
      assert.match(await noCompany.res.text(), /Enter the company name that goes with the VAT ID/);

      const ok = await act('cat@example.com', {
        action: 'billing',
        transactionId: id,
        name: 'Cat Weber',
        company: 'Weber GmbH',
        address: 'Hauptstr. 1\n10115 Berlin',
        vatId: 'DE123456789',
      });
      assert.equal(ok.res.status, 303);
      assert.match(ok.res.headers.get('location')!, /done=reverse-charge-starts/);
      const business = await tx(id);
      assert.deepEqual(
        [
          business.buyerName,
          business.businessName,
          business.buyerAddress,
          business.buyerVatId,
          business.reverseCharge,
          business.taxMinor,
        ],
        ['Cat Weber', 'Weber GmbH', 'Hauptstr. 1\n10115 Berlin', 'DE123456789', true, 0],
      );
      clock.advance(31 * DAY);
      await runWorkerOnce(t.services);
      const renewal = (await t.services.store.entries.listForTransaction(id)).at(-1)!;
      assert.deepEqual([renewal.type, renewal.netMinor, renewal.taxMinor], ['SUBSCRIPTION_PAYMENT', 1000, 0]);
      const invoice = await t.services.invoices.find('sandbox', renewal.hashId);
      assert.deepEqual(
        [invoice.buyer.businessName, invoice.buyer.vatId, invoice.reverseCharge],
        ['Weber GmbH', 'DE123456789', true],
      );

      const stop = await act('cat@example.com', {
        action: 'billing',
        transactionId: id,
        name: 'Cat Weber',
        company: '',
        address: '',
        vatId: '',
      });
      assert.match(stop.res.headers.get('location')!, /done=reverse-charge-stops/);
      const consumer = await tx(id);
      assert.deepEqual(
        [consumer.reverseCharge, consumer.buyerVatId, consumer.taxMinor, consumer.taxRate],
        [false, null, 190, '0.19'],
      );
      clock.advance(31 * DAY);
      await runWorkerOnce(t.services);
      assert.equal((await t.services.store.entries.listForTransaction(id)).at(-1)!.taxMinor, 190);

      // An invoice says what it was issued with, whenever it is downloaded: the first (a consumer
      // paying German VAT) and the reverse-charge renewal keep theirs through both edits; the latest
      // is made out as the details are now.
      const [first, , latest] = await t.services.store.entries.listForTransaction(id);
      const issued = async (hashId: string) => {
        const d = await t.services.invoices.find('sandbox', hashId);
        return [
          d.buyer.name,
          d.buyer.businessName,
          d.buyer.vatId,
          d.buyer.address,
          d.reverseCharge,
          d.taxName,
          d.taxMinor,
        ];
      };
      assert.deepEqual(await issued(first!.hashId), [null, null, null, [], false, 'VAT', 190]);
      assert.deepEqual(await issued(renewal.hashId), [
        'Cat Weber',
        'Weber GmbH',
        'DE123456789',
        ['Hauptstr. 1', '10115 Berlin'],
        true,
        'Reverse charge',
        0,
      ]);
      assert.deepEqual(await issued(latest!.hashId), ['Cat Weber', null, null, [], false, 'VAT', 190]);
    });

    test('plan switch: only the plans the vendor allows; an upgrade now with proration, with the same card, once', async () => {
      const basic = await monthly('Basic', 10);
      const plus = await monthly('Plus', 20);
      const lite = await monthly('Lite', 5);
      const other = await monthly('Not offered', 30);
      await t.services.portal.setSwitches(v.scope(), basic.id, [plus.id, lite.id, basic.id]);
      assert.deepEqual((await t.services.portal.switchesOf(v.scope(), basic.id)).sort(), [plus.id, lite.id].sort());
      const id = await v.buy(basic.id, { email: 'dan@example.com' });
      clock.advance(15 * DAY);
      const path = await manageLink('dan@example.com');
      assert.match((await open(path)).html, /data-testid="change-plan"/);
      const choices = await open(`${path}?page=switch&id=${id}`);
      assert.equal(choices.html.match(/data-testid="plan"/g)?.length, 2);
      assert.match(choices.html, /Switch to Plus/);
      assert.doesNotMatch(choices.html, /Not offered/);

      const refused = await act('dan@example.com', { action: 'switch', transactionId: id, productId: other.id });
      assert.equal(refused.res.status, 400);
      assert.equal((await tx(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE');

      const { res, again } = await act('dan@example.com', { action: 'switch', transactionId: id, productId: plus.id });
      assert.equal(res.status, 303);
      const old = await tx(id);
      assert.deepEqual(
        [old.status, old.whoCanceled, old.nextCharge],
        ['SUBSCRIPTION_STATUS_CANCELLED', 'CUSTOMER', null],
      );
      const mine = (await t.services.store.transactions.listByEmail(v.scope(), 'dan@example.com')).filter(
        (x) => x.productId === plus.id,
      );
      assert.equal(mine.length, 1);
      const next = mine[0]!;
      assert.equal(next.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      // 16 of Basic's 31 days ($10) are left: they buy 8 days of Plus ($20 a month of 31 days).
      assert.equal(Date.parse(next.nextCharge!) - clock.now().getTime(), 8 * DAY);
      const card = async (x: typeof next) => (await t.services.store.paymentMethods.find(x.paymentMethodId!))!.token;
      assert.equal(await card(next), await card(old));
      assert.equal((await again()).status, 303, 'the same form again lands on the same page');
      assert.equal((await t.services.store.transactions.listByEmail(v.scope(), 'dan@example.com')).length, 2);
    });

    test('plan switch: a downgrade starts when the paid period ends, the old plan running out until then', async () => {
      const pro = await monthly('Pro plan', 40);
      const starter = await monthly('Starter plan', 10);
      await t.services.portal.setSwitches(v.scope(), pro.id, [starter.id]);
      const id = await v.buy(pro.id, { email: 'eve@example.com' });
      const path = await manageLink('eve@example.com');
      assert.match(
        (await open(`${path}?page=switch&id=${id}`)).html,
        /Starts when your current period ends, on June 2, 2030/,
      );
      const { res } = await act('eve@example.com', { action: 'switch', transactionId: id, productId: starter.id });
      assert.equal(res.status, 303);
      const old = await tx(id);
      assert.deepEqual(
        [old.status, old.nextCharge],
        ['SUBSCRIPTION_STATUS_CANCELLED_PENDING', '2030-06-02T08:00:00.000Z'],
      );
      const next = (await t.services.store.transactions.listByEmail(v.scope(), 'eve@example.com')).find(
        (x) => x.productId === starter.id,
      )!;
      assert.equal(next.nextCharge, '2030-06-02T08:00:00.000Z');
    });

    test("no form reaches another customer's purchase", async () => {
      const plan = await monthly('Shared', 9);
      await t.services.portal.setSwitches(v.scope(), plan.id, [(await monthly('Up', 19)).id]);
      const theirs = await v.buy(plan.id, { email: 'fred@example.com' });
      await v.buy(plan.id, { email: 'gina@example.com' });
      const path = await manageLink('gina@example.com');
      for (const page of ['cancel', 'billing', 'switch'])
        assert.equal((await open(`${path}?page=${page}&id=${theirs}`)).status, 404);
      // A query naming what every object has is not a notice or a page.
      for (const done of ['constructor', '__proto__', 'toString'])
        assert.equal((await open(`${path}?done=${done}`)).status, 200);
      assert.equal((await open(`${path}?page=constructor&id=${theirs}`)).status, 404);
      for (const action of ['cancel', 'billing', 'switch'])
        assert.equal(
          (await act('gina@example.com', { action, transactionId: theirs, productId: plan.id })).res.status,
          404,
        );
      assert.equal((await tx(theirs)).status, 'SUBSCRIPTION_STATUS_ACTIVE');
    });
  });
}
