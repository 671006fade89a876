import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { REVERSE_CHARGE_NOTE } from '../../src/documents/invoice-pdf.ts';
import { freshDatabase } from '../../support/databases.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const SECRET = 'cli-test-secret-0123456789-0123456789-ab';

/**
 * Seller details (decisions §16): set in the panel's Settings page and with `opentill vendor
 * settings`, checked, and shown on invoices and credit notes with the buyer's details.
 */
for (const kind of await storeKinds()) {
  describe(`seller details (${kind})`, () => {
    const clock = fixedClock(new Date('2030-03-05T09:00:00.000Z'));
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, env: { PANEL_SIGNUP: 'open' } }, (app, vendor) => ((t = app), (v = vendor)), 'Acme');

    function browser() {
      const jar = new Map<string, string>();
      let lastPage = '';
      const remember = (res: Response) => {
        for (const line of res.headers.getSetCookie()) {
          const [name, value] = line.split(';')[0]!.split('=');
          if (value) jar.set(name!, value);
          else jar.delete(name!);
        }
      };
      const cookie = () => [...jar].map(([k, val]) => `${k}=${val}`).join('; ');
      return {
        async get(path: string) {
          const res = await fetch(`${t.url}${path}`, { headers: { cookie: cookie() }, redirect: 'manual' });
          remember(res);
          lastPage = await res.text();
          return { status: res.status, html: lastPage };
        },
        async post(path: string, fields: Record<string, string>) {
          const csrf = /name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '';
          const res = await fetch(`${t.url}${path}`, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ csrf, ...fields }),
          });
          remember(res);
          const html = await res.text();
          if (res.status === 200 || res.status === 400) lastPage = html;
          return { status: res.status, html, location: res.headers.get('location') };
        },
      };
    }

    test('the panel Settings page saves the seller details (303), and a refused save keeps what was typed with a plain error', async () => {
      const b = browser();
      await b.get('/panel/signup');
      assert.equal(
        (
          await b.post('/panel/signup', {
            company: 'Panel Co',
            email: `owner-${kind}@panel.test`,
            password: 'correct horse battery',
          })
        ).status,
        303,
      );
      await b.get('/panel/settings');
      const fields = {
        allowConversion: 'yes',
        sellerName: 'Panel Co GmbH',
        address: 'Hauptstraße 1\n10115 Berlin',
        country: 'XX',
        taxId: 'DE123456789',
        supportEmail: 'help@panel.test',
      };
      const refused = await b.post('/panel/settings?env=sandbox', fields);
      assert.equal(refused.status, 400);
      assert.match(refused.html, /The country must be a two-letter code/);
      assert.ok(
        refused.html.includes('value="Panel Co GmbH"') &&
          refused.html.includes('value="XX"') &&
          refused.html.includes('value="help@panel.test"'),
      );
      const badEmail = await b.post('/panel/settings?env=sandbox', {
        ...fields,
        country: 'de',
        supportEmail: 'not-an-address',
      });
      assert.equal(badEmail.status, 400);
      assert.match(badEmail.html, /The support e-mail must be an e-mail address/);

      const saved = await b.post('/panel/settings?env=sandbox', { ...fields, country: 'de' });
      assert.equal(saved.status, 303);
      const page = await b.get('/panel/settings?env=sandbox&done=settings');
      assert.match(page.html, /The settings are saved/);
      for (const shown of [
        'value="Panel Co GmbH"',
        'Hauptstraße 1\n10115 Berlin',
        'value="DE"',
        'value="DE123456789"',
        'value="help@panel.test"',
      ]) {
        assert.ok(page.html.includes(shown), shown);
      }
      // Clearing a field clears it.
      assert.equal((await b.post('/panel/settings?env=sandbox', { ...fields, country: '', taxId: '' })).status, 303);
      const cleared = await b.get('/panel/settings?env=sandbox');
      assert.ok(cleared.html.includes('id="taxId" name="taxId" maxlength="40" value=""'));
    });

    test('the settings are checked: lengths, tax ID characters, logo type and size', async () => {
      const set = (s: object) => t.services.catalog.updateVendorSettings(v.vendor.id, s);
      await assert.rejects(set({ sellerName: 'x'.repeat(201) }), /at most 200 characters/);
      await assert.rejects(set({ taxId: 'DE<script>' }), /letters, digits/);
      await assert.rejects(set({ logo: Buffer.from('GIF89a....') }), /PNG or JPEG/);
      await assert.rejects(set({ logo: Buffer.concat([PNG, Buffer.alloc(100 * 1024)]) }), /at most 100 KB/);
      await assert.rejects(set({ address: Array.from({ length: 7 }, (_, i) => `line ${i}`) }), /at most 6 lines/);
      const vendor = await set({ logo: PNG, address: ['  a  ', '', 'b'] });
      assert.match(vendor.logo!, /^data:image\/png;base64,/);
      assert.deepEqual(vendor.address, ['a', 'b']);
    });

    test('invoices and credit notes show the seller block, the buyer with VAT ID, the line, and the reverse-charge note when flagged', async () => {
      await t.services.catalog.updateVendorSettings(v.vendor.id, {
        sellerName: 'Acme Software GmbH',
        address: ['Hauptstraße 1', '10115 Berlin'],
        country: 'DE',
        taxId: 'DE123456789',
        supportEmail: 'help@acme.test',
        logo: PNG,
      });
      const product = await v.product({
        type: 'ONETIME',
        name: 'Pro licence',
        prices: [{ currency: 'USD', value: 12 }],
      });
      const id = await v.buy(product.id, {
        email: 'd@example.com',
        firstName: 'Ωμέγα',
        lastName: 'Дмитрий Łukasz',
        country: 'FR',
      });
      // Business-buyer fields as the checkout stores them for an EU B2B sale.
      const scope = v.scope('sandbox');
      const transaction = (await t.services.store.transactions.find(scope, id))!;
      await t.services.database.kysely
        .updateTable('transactions')
        .set({ buyer_vat_id: 'FR12345678901', reverse_charge: 1, business_name: 'Société SARL' } as never)
        .where('id', '=', id)
        .execute();
      const hash = (await t.services.store.entries.listForTransaction(id))[0]!.hashId;
      const text = await pdfText(Buffer.from(await (await fetch(`${t.url}/sandbox/invoice/${hash}`)).arrayBuffer()));
      for (const expected of [
        'Acme Software GmbH',
        'Hauptstraße 1',
        '10115 Berlin',
        'Germany',
        'VAT ID: DE123456789',
        'Ωμέγα Дмитрий Łukasz',
        'help@acme.test',
        'Pro licence',
      ]) {
        assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
      }
      assert.match(text, /Qty\s*Unit price\s*Amount/);
      assert.equal(transaction.id, id);
      {
        for (const expected of ['VAT ID: FR12345678901', 'Société SARL', REVERSE_CHARGE_NOTE])
          assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
        const refund = await v.api(`/v1/refund-transaction/${id}`, { method: 'POST' });
        assert.equal(refund.status, 200, refund.text);
        const credit = await pdfText(
          Buffer.from(await (await fetch(`${t.url}/sandbox/invoice/${refund.json[0].hashId}`)).arrayBuffer()),
        );
        for (const expected of ['Credit note', 'VAT ID: DE123456789', 'VAT ID: FR12345678901', REVERSE_CHARGE_NOTE])
          assert.ok(credit.includes(expected), `"${expected}" in: ${credit}`);
      }
    });

    test('opentill vendor settings sets and clears the seller details and the logo', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'opentill-seller-'));
      const fresh = kind === 'postgres' ? await freshDatabase('postgres') : undefined;
      await fresh?.database.close();
      const env = { OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dir, ...(fresh ? { DATABASE_URL: fresh.url! } : {}) };
      try {
        if (fresh) succeeded(await cli(['migrate', '--json'], env));
        const created = await cli(['vendor', 'create', '--name', 'Acme', '--email', 'owner@acme.test', '--json'], env);
        succeeded(created);
        const vendorId = parseJson(created).vendor.id as string;
        const logo = join(dir, 'logo.png');
        writeFileSync(logo, PNG);
        const set = await cli(
          [
            'vendor',
            'settings',
            '--vendor',
            vendorId,
            '--seller-name',
            'Acme GmbH',
            '--address',
            'Hauptstraße 1 | 10115 Berlin',
            '--country',
            'de',
            '--tax-id',
            'DE123456789',
            '--support-email',
            'help@acme.test',
            '--logo',
            logo,
            '--json',
          ],
          env,
        );
        succeeded(set);
        const out = parseJson(set);
        assert.equal(out.sellerName, 'Acme GmbH');
        assert.deepEqual(out.address, ['Hauptstraße 1', '10115 Berlin']);
        assert.equal(out.country, 'DE');
        assert.equal(out.taxId, 'DE123456789');
        assert.equal(out.supportEmail, 'help@acme.test');
        assert.match(out.logo, /^data:image\/png;base64,/);
        const bad = await cli(['vendor', 'settings', '--vendor', vendorId, '--support-email', 'nope'], env);
        assert.notEqual(bad.code, 0);
        assert.match(bad.stderr + bad.stdout, /support e-mail must be an e-mail address/);
        const cleared = await cli(
          ['vendor', 'settings', '--vendor', vendorId, '--logo', 'none', '--tax-id', '', '--json'],
          env,
        );
        succeeded(cleared);
        assert.equal(parseJson(cleared).logo, null);
        assert.equal(parseJson(cleared).taxId, null);
        assert.equal(parseJson(cleared).sellerName, 'Acme GmbH');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
