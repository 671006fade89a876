import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { taxReportCsv } from '../../src/domain/books/index.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { formBrowser } from '../helpers/form-browser.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The operator's console over HTTP (issue 34, docs/decisions.md §26): logins only from the CLI, kept
 * apart from vendors'; every page behind a session and every form behind its token; vendors, fees,
 * statements and tax returns through the same domain calls as the CLI, and bad input said on the page
 * with nothing changed.
 */
const DAY = 86_400_000;
const START = Date.parse('2030-03-02T10:00:00.000Z');
// The ECB's day before the quarter's end (31 March 2030 is a Sunday): 1.25 USD a euro.
const HISTORY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <Cube><Cube time="2030-03-29"><Cube currency="USD" rate="1.2500"/></Cube></Cube>
</gesmes:Envelope>`;

for (const kind of await storeKinds()) {
  describe(`operator console (${kind})`, () => {
    const clock = fixedClock(new Date(START));
    const dataDir = mkdtempSync(join(tmpdir(), 'opentill-operator-'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, env: { OPENTILL_DATA_DIR: dataDir, PLATFORM_FEE: '10%' } }, (app, vendor) => {
      t = app;
      v = vendor;
    });

    async function signedIn(email = 'ops@opentill.test') {
      const made = await t.services.operators.create(email);
      const b = formBrowser(t.url);
      await b.get('/operator/signin');
      const res = await b.post('/operator/signin', { email, password: made.password });
      assert.equal(res.status, 303, res.html);
      assert.equal(res.location, '/operator');
      return { b, password: made.password, cookie: res.setCookie.find((c) => c.startsWith('ot_operator='))! };
    }

    test('every page and download asks to sign in; a login is the CLI’s, apart from vendors’, and a wrong password is refused', async () => {
      const stranger = formBrowser(t.url);
      for (const path of [
        '/operator',
        '/operator/balances',
        '/operator/payouts',
        '/operator/reports/tax.csv?period=2030',
      ])
        assert.equal((await stranger.get(path)).location, '/operator/signin', path);
      await stranger.get('/operator/signin');
      const wrong = await stranger.post('/operator/signin', { email: 'ops1@opentill.test', password: 'guess' });
      assert.equal(wrong.status, 401);
      assert.match(wrong.html, /The e-mail or the password is wrong/);
      await assert.rejects(t.services.operators.create('not an e-mail'), { code: 'INVALID_EMAIL' });

      const { cookie, password } = await signedIn('ops1@opentill.test');
      assert.match(cookie, /; Path=\/operator; HttpOnly; SameSite=Lax; Max-Age=28800/);
      await assert.rejects(t.services.operators.create('OPS1@opentill.test'), { code: 'INVALID_STATE' });
      // The vendor's panel does not know the operator, and the operator's e-mail is no vendor login.
      const panel = formBrowser(t.url);
      await panel.get('/panel/signin');
      assert.equal((await panel.post('/panel/signin', { email: 'ops1@opentill.test', password })).status, 401);
    });

    test('a form without its token changes nothing; signing out and a new password end the session', async () => {
      const { b } = await signedIn('ops2@opentill.test');
      await b.get(`/operator/vendors/${v.vendor.id}`);
      const forged = await b.post(`/operator/vendors/${v.vendor.id}/fee`, { fee: '1%' }, false);
      assert.equal(forged.status, 403);
      assert.equal((await t.services.catalog.requireVendor(v.vendor.id)).platformFee, null);

      await b.get('/operator');
      assert.equal((await b.post('/operator/signout', {})).location, '/operator/signin');
      assert.equal((await b.get('/operator')).location, '/operator/signin');

      const again = await signedIn('ops3@opentill.test');
      await t.services.operators.resetPassword('ops3@opentill.test');
      assert.equal((await again.b.get('/operator')).location, '/operator/signin');

      // A session ends after 8 hours of the server's clock, whatever the cookie's own age says.
      const late = await signedIn('ops3b@opentill.test');
      clock.advance(8 * 3600_000 - 1000);
      assert.equal((await late.b.get('/operator')).status, 200);
      clock.advance(2000);
      assert.equal((await late.b.get('/operator')).location, '/operator/signin');
    });

    test('vendors: production enabled, a fee set, suspended and resumed from the console; bad input or an unknown vendor is said and changes nothing', async () => {
      const { b } = await signedIn('ops4@opentill.test');
      const closed = await t.services.catalog.createVendor({
        name: 'Newcomer',
        email: 'new@comer.test',
        productionEnabled: false,
      });
      const list = await b.get('/operator');
      assert.match(list.html, new RegExp(`${closed.id}[\\s\\S]*Sandbox only`));
      assert.match(list.html, /10% \(PLATFORM_FEE\)/);

      await b.get(`/operator/vendors/${closed.id}`);
      const enabled = await b.post(`/operator/vendors/${closed.id}/production`, {});
      assert.equal(enabled.location, `/operator/vendors/${closed.id}?env=production&done=production`);
      assert.equal((await t.services.catalog.requireVendor(closed.id)).productionEnabled, true);

      await b.get(`/operator/vendors/${closed.id}`);
      const bad = await b.post(`/operator/vendors/${closed.id}/fee`, { fee: '5 percent' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /role="alert"/);
      assert.match(bad.html, /value="5 percent"/, 'what was typed is shown again');
      assert.equal((await t.services.catalog.requireVendor(closed.id)).platformFee, null);
      assert.equal((await b.post(`/operator/vendors/${closed.id}/fee`, { fee: '3%+0.30USD' })).status, 303);
      assert.equal((await t.services.catalog.requireVendor(closed.id)).platformFee, '3%+0.30USD');
      assert.match((await b.get(`/operator/vendors/${closed.id}?done=fee`)).html, /3%\+0\.30USD \(its own\)/);
      await b.get(`/operator/vendors/${closed.id}`);
      assert.equal((await b.post(`/operator/vendors/${closed.id}/fee`, { fee: '' })).status, 303);
      assert.equal((await t.services.catalog.requireVendor(closed.id)).platformFee, null, 'empty: PLATFORM_FEE again');

      // Suspended with renewals stopped, from the console: the vendor's checkout takes nothing new.
      await b.get(`/operator/vendors/${closed.id}`);
      const tooLong = await b.post(`/operator/vendors/${closed.id}/suspend`, { reason: 'x'.repeat(501) });
      assert.equal(tooLong.status, 400);
      assert.equal((await t.services.catalog.requireVendor(closed.id)).suspension, null);
      const suspended = await b.post(`/operator/vendors/${closed.id}/suspend`, {
        reason: 'Chargebacks under review',
        stopRenewals: 'yes',
      });
      assert.equal(suspended.location, `/operator/vendors/${closed.id}?env=production&done=suspended`);
      const suspension = (await t.services.catalog.requireVendor(closed.id)).suspension;
      assert.deepEqual([suspension?.reason, suspension?.renewalsStopped], ['Chargebacks under review', true]);
      await assert.rejects(t.services.catalog.requireOpenForSale({ vendorId: closed.id, environment: 'sandbox' }));
      const shown = await b.get(`/operator/vendors/${closed.id}`);
      assert.match(shown.html, /Suspended, renewals stopped[^]*Chargebacks under review/);
      assert.equal((await b.post(`/operator/vendors/${closed.id}/resume`, {})).status, 303);
      assert.equal((await t.services.catalog.requireVendor(closed.id)).suspension, null);
      await t.services.catalog.requireOpenForSale({ vendorId: closed.id, environment: 'sandbox' });

      assert.equal((await b.get('/operator/vendors/TC-VE_NOBODY')).status, 404);
      assert.equal((await b.post('/operator/vendors/TC-VE_NOBODY/production', {})).status, 404);
    });

    test('payouts: balances, statements made and marked paid once, their CSV and PDF; the other environment’s is not found', async () => {
      clock.set(new Date(START));
      const product = await v.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 100 }] });
      await v.buy(product.id, { email: 'buyer@example.com', country: 'US', region: 'OR', currency: 'USD' });
      clock.set(new Date(START + 20 * DAY));
      // Signed in now: a session lasts 8 hours of this clock.
      const { b } = await signedIn('ops5@opentill.test');

      const balances = await b.get('/operator/balances?env=sandbox');
      assert.match(balances.html, new RegExp(`data-testid="balance-${v.vendor.id}-USD"[^]*?\\$90\\.00`));
      await b.get('/operator/payouts?env=sandbox');
      const noDay = await b.post('/operator/payouts?env=sandbox', { vendor: v.vendor.id, until: '2030-02-30' });
      assert.equal(noDay.status, 400);
      assert.deepEqual(await t.services.payouts.list(v.vendor.id, 'sandbox'), []);
      const made = await b.post('/operator/payouts?env=sandbox', { vendor: v.vendor.id, until: '2030-03-22' });
      assert.equal(made.location, `/operator/payouts?env=sandbox&vendor=${v.vendor.id}&done=statements`);
      const [statement] = await t.services.payouts.list(v.vendor.id, 'sandbox');
      assert.equal(statement?.payableMinor, 9000);
      await b.get('/operator/payouts?env=sandbox');
      const none = await b.post('/operator/payouts?env=sandbox', { vendor: v.vendor.id, until: '2030-03-22' });
      assert.match(none.location!, /done=no-statements/);

      assert.equal(
        (await b.get(`/operator/payouts/${statement!.id}`)).status,
        404,
        'a sandbox statement under production',
      );
      const csv = await b.get(`/operator/payouts/${statement!.id}/csv?env=sandbox`);
      assert.match(csv.headers.get('content-disposition')!, /statement-1-USD\.csv/);
      assert.match(csv.html, /^total,TC-PO_\S+,1,USD,payable,,,,90\.00,/m);
      const pdf = await b.get(`/operator/payouts/${statement!.id}/pdf?env=sandbox`);
      assert.equal(pdf.body.subarray(0, 5).toString(), '%PDF-');

      await b.get(`/operator/payouts/${statement!.id}?env=sandbox`);
      const noRef = await b.post(`/operator/payouts/${statement!.id}/paid?env=sandbox`, { reference: ' ' });
      assert.equal(noRef.status, 400);
      assert.equal((await t.services.payouts.show(statement!.id)).paid, null);
      const paid = await b.post(`/operator/payouts/${statement!.id}/paid?env=sandbox`, { reference: 'SEPA-0042' });
      assert.equal(paid.status, 303);
      assert.equal((await t.services.payouts.show(statement!.id)).paid?.reference, 'SEPA-0042');
      const page = await b.get(`/operator/payouts/${statement!.id}?env=sandbox`);
      assert.match(page.html, /SEPA-0042/);
      assert.doesNotMatch(page.html, /data-testid="mark-paid"/, 'a paid statement has no form to pay it again');
    });

    test('tax returns: the quarter as a table and as the CLI’s CSV, at the kept ECB day; a bad period is said on the page', async () => {
      const { b } = await signedIn('ops6@opentill.test');
      const vendor = await t.newVendor('Returns Ltd');
      clock.set(new Date('2030-02-10T10:00:00.000Z'));
      const product = await vendor.product({ type: 'ONETIME', prices: [{ currency: 'USD', value: 100 }] });
      await vendor.buy(product.id, { email: 'de@example.com', country: 'DE', currency: 'USD' });
      const query = `period=2030-Q1&scheme=oss&vendor=${vendor.vendor.id}&env=sandbox`;

      const noRates = await b.get(`/operator/reports?${query}`);
      assert.equal(noRates.status, 400, 'no ECB day for 31 March 2030 is kept yet');
      assert.match(noRates.html, /No ECB reference rates for 2030-03-31/);
      // What `opentill rates import` keeps; read when asked, without a restart.
      writeFileSync(t.services.config.ratesHistoryFile, HISTORY);
      const shown = await b.get(`/operator/reports?${query}`);
      assert.equal(shown.status, 200);
      assert.match(shown.html, /data-testid="tax-row"[^]*?DE[^]*?0\.19[^]*?100\.00 USD[^]*?19\.00 USD[^]*?15\.20 EUR/);
      const csv = await b.get(`/operator/reports/tax.csv?${query}`);
      const expected = await t.services.taxReturns.report({
        period: '2030-Q1',
        scheme: 'oss',
        environment: 'sandbox',
        vendorId: vendor.vendor.id,
        rates: t.services.rateHistory(),
      });
      assert.equal(csv.html, taxReportCsv(expected.period, expected.rows));
      assert.match(csv.headers.get('content-disposition')!, /tax-2030-Q1-oss-TC-VE_/);

      const bad = await b.get('/operator/reports?period=2030-Q5');
      assert.equal(bad.status, 400);
      assert.match(bad.html, /is not a period/);
    });
  });
}
