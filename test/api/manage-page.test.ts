import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { manageVisit } from '../helpers/manage-visit.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The customer's management page behind generate-url-to-manage-transactions: their purchases with
 * invoices, licence keys and cards; cancel (whoCanceled CUSTOMER); change the card; nothing of anyone
 * else's; forms refused without their token.
 */
const LATER_DECLINED = { number: '4000000000000341', expMonth: 12, expYear: 2035 };

for (const kind of await storeKinds()) {
  describe(`customer management page (${kind})`, () => {
    const clock = fixedClock(new Date('2030-05-02T08:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock }, (app, vendor) => ((t = app), (v = vendor)), 'Acme Software');

    const { manageLink, open, formToken, post } = manageVisit(
      () => t,
      () => v,
    );
    const status = async (id: string) => (await t.services.store.transactions.find(v.scope(), id))!;

    test('lists the purchases with status, licence key, card and invoice links that open the PDF', async () => {
      const app = await v.product({
        type: 'ONETIME',
        name: 'Desktop app',
        issuesLicences: true,
        prices: [{ currency: 'USD', value: 40 }],
      } as any);
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Cloud sync',
        prices: [{ currency: 'USD', value: 5 }],
      } as any);
      const one = await v.buy(app.id, { email: 'ann@example.com' });
      await v.buy(plan.id, { email: 'ann@example.com' });
      await v.buy(plan.id, { email: 'someone-else@example.com' });

      const page = await open(await manageLink('Ann@Example.com'));
      assert.equal(page.status, 200);
      assert.match(page.csp!, /frame-ancestors 'none'/);
      assert.equal(page.html.match(/data-testid="purchase"/g)?.length, 2, 'only her two purchases');
      assert.match(page.html, /Desktop app/);
      assert.match(page.html, /Paid on May 2, 2030/);
      assert.match(page.html, /Active, next payment on June 2, 2030/);
      assert.match(page.html, /class="key" data-testid="licence" dir="ltr">[0-9A-Z]{5}(-[0-9A-Z]{5}){4}</);
      assert.match(page.html, /Card: Visa ending in 4242/);
      assert.doesNotMatch(page.html, /someone-else/);
      // Amounts in the customer's locale, as at checkout: the browser's Accept-Language, else English.
      assert.match(page.html, /data-testid="price">\$40\.00<\/p>/);
      assert.match(page.html, /data-testid="price">\$5\.00 every month<\/p>/);
      assert.match(page.html, /May 2, 2030 · \$40\.00<\/bdi>/);
      const german = await open(await manageLink('ann@example.com'), { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
      assert.match(german.html, /<html lang="de"/);
      assert.match(german.html, /data-testid="price">5,00\u00a0\$ monatlich<\/p>/);
      assert.match(german.html, /Bezahlt am 2\. Mai 2030/);

      const link = new RegExp(`data-id="${one}"[\\s\\S]*?href="([^"]+)" download data-testid="invoice"`).exec(
        page.html,
      )![1]!;
      const pdf = await fetch(new URL(link, `${t.url}${await manageLink('ann@example.com')}`));
      assert.equal(pdf.status, 200);
      assert.match(await pdfText(Buffer.from(await pdf.arrayBuffer())), /Desktop app.*Total paid\s*\$40\.00/);
    });

    test('the customer cancels a subscription: CANCELLED_PENDING by CUSTOMER, in the feed, then no cancel button', async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Team plan',
        prices: [{ currency: 'USD', value: 9 }],
      } as any);
      const id = await v.buy(plan.id, { email: 'bob@example.com' });
      const path = await manageLink('bob@example.com');
      const page = await open(path);
      const res = await post(path, { formToken: formToken(page.html), action: 'cancel', transactionId: id });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '?done=cancelled');
      const tx = await status(id);
      assert.equal(tx.status, 'SUBSCRIPTION_STATUS_CANCELLED_PENDING');
      assert.equal(tx.whoCanceled, 'CUSTOMER');
      const feed = (await v.api('/v1/changed-transactions')).json as any[];
      assert.equal(feed.find((e) => e.id === id)?.changeStatus, 'CHANGED_STATUS_CANCELLED');
      const after = await open(`${path}?done=cancelled`);
      assert.match(after.html, /Cancelled\. Nothing more will be charged/);
      assert.match(after.html, /Cancelled, active until June 2, 2030/);
      assert.doesNotMatch(
        new RegExp(`data-id="${id}"[\\s\\S]*?</section>`).exec(after.html)![0],
        /data-testid="cancel"/,
      );
    });

    test("forms are refused without the page token, with another link's token, and for someone else's purchase", async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9 }],
      } as any);
      const mine = await v.buy(plan.id, { email: 'carol@example.com' });
      const theirs = await v.buy(plan.id, { email: 'dave@example.com' });
      const carol = await manageLink('carol@example.com');
      const dave = await open(await manageLink('dave@example.com'));

      assert.equal((await post(carol, { action: 'cancel', transactionId: mine })).status, 403);
      assert.equal(
        (await post(carol, { formToken: formToken(dave.html), action: 'cancel', transactionId: mine })).status,
        403,
      );
      const token = formToken((await open(carol)).html);
      const foreign = await post(carol, { formToken: token, action: 'cancel', transactionId: theirs });
      assert.equal(foreign.status, 404);
      assert.equal((await status(theirs)).status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal((await status(mine)).status, 'SUBSCRIPTION_STATUS_ACTIVE');
      const other = await t.newVendor('Other');
      const otherLink = new URL(
        (await other.api('/v1/generate-url-to-manage-transactions/carol%40example.com')).json.url,
      ).pathname;
      assert.doesNotMatch(
        (await open(otherLink)).html,
        /data-testid="purchase"/,
        "another vendor's page shows none of this vendor's purchases",
      );
    });

    test('a new card ends dunning: the declined renewal is retried at once with it', async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        name: 'Pro',
        prices: [{ currency: 'USD', value: 12 }],
      } as any);
      clock.set(new Date('2030-05-02T08:00:00.000Z'));
      const id = await v.buy(plan.id, { email: 'erin@example.com', card: LATER_DECLINED });
      clock.set(new Date('2030-06-02T08:00:00.000Z'));
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).declined, 1);
      assert.equal((await status(id)).nextCharge, '2030-06-03T08:00:00.000Z');

      const path = await manageLink('erin@example.com');
      const token = formToken((await open(path)).html);
      const refused = await post(path, {
        formToken: token,
        action: 'card',
        transactionId: id,
        cardNumber: '4000000000000002',
        cardExpiry: '13/35',
        cardCvc: '123',
      });
      assert.equal(refused.status, 400, 'a bad expiry is refused');
      const saved = await post(path, {
        formToken: token,
        action: 'card',
        transactionId: id,
        cardNumber: '4242 4242 4242 4242',
        cardExpiry: '11/36',
        cardCvc: '123',
      });
      assert.equal(saved.status, 303);
      assert.match((await open(`${path}?done=card`)).html, /Card: Visa ending in 4242, expires 11\/2036/);
      assert.equal((await status(id)).nextCharge, '2030-06-02T08:00:00.000Z', 'due again now');
      assert.equal((await t.services.billing.runDue({ sandboxVendorId: v.vendor.id })).renewed, 1);
      const tx = await status(id);
      assert.equal(tx.status, 'SUBSCRIPTION_STATUS_ACTIVE');
      assert.equal(tx.nextCharge, '2030-07-02T08:00:00.000Z');

      const real = await post(path, {
        formToken: token,
        action: 'card',
        transactionId: id,
        cardNumber: '4111111111111111',
        cardExpiry: '11/36',
        cardCvc: '123',
      });
      assert.equal(real.status, 402);
      assert.match(await real.text(), /real cards are refused/);
    });

    test('an expired link says so, and its forms do nothing', async () => {
      const plan = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9 }],
      } as any);
      const id = await v.buy(plan.id, { email: 'fay@example.com' });
      const path = await manageLink('fay@example.com');
      const token = formToken((await open(path)).html);
      clock.advance(3600_000);
      const page = await open(path);
      assert.equal(page.status, 410);
      assert.match(page.html, /expired/);
      assert.equal((await post(path, { formToken: token, action: 'cancel', transactionId: id })).status, 410);
      assert.equal((await status(id)).status, 'SUBSCRIPTION_STATUS_ACTIVE');
    });
  });
}
