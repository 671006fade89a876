import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CUSTOMER_EMAIL_KINDS, type Scope } from '../../src/domain/model.ts';
import { escapeHtml } from '../../src/http/pages/layout.ts';
import { runWorkerOnce } from '../../src/worker.ts';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.ts';
import { startTestApp, storeKinds, TEST_CARD, type TestApp } from '../helpers/test-app.ts';

/**
 * The panel's E-mails page over HTTP: it says whether customer e-mails go out at all, saves the
 * sender name, reply-to and the kinds turned off (refusing bad input with nothing changed), previews
 * every kind with sample data, sends a test to the signed-in vendor only, and lists the latest
 * e-mails with the failed ones and their reasons.
 */
const FROM = 'receipts@opentill.test';

/** A browser of sorts, signed up as a new vendor: keeps cookies, reads the page's form token. */
async function signedUp(t: TestApp, email: string, company = 'Acme Software') {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=');
      if (value) jar.set(name!, value);
      else jar.delete(name!);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let lastPage = '';
  const b = {
    async get(path: string) {
      const res = await fetch(`${t.url}${path}`, { headers: { cookie: cookie() }, redirect: 'manual' });
      remember(res);
      lastPage = await res.text();
      return { status: res.status, html: lastPage, location: res.headers.get('location'), headers: res.headers };
    },
    async post(
      path: string,
      fields: Record<string, string>,
      token: string | null = /name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '',
    ) {
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(token === null ? fields : { csrf: token, ...fields }),
      });
      remember(res);
      const html = await res.text();
      if (res.status === 200) lastPage = html;
      return { status: res.status, html, location: res.headers.get('location') };
    },
  };
  await b.get('/panel/signup');
  const res = await b.post('/panel/signup', { company, email, password: 'correct horse battery' });
  assert.equal(res.status, 303, res.html);
  const vendorId = /data-testid="vendor-id">([^<]+)</.exec((await b.get('/panel/emails?env=sandbox')).html)![1]!;
  // An open sign-up starts in the sandbox; the operator lets these vendors reach production too.
  await t.services.catalog.enableProduction(vendorId);
  return {
    ...b,
    vendorId,
    scope: (environment: Scope['environment'] = 'sandbox'): Scope => ({ vendorId, environment }),
  };
}

/** Every kind ticked, as the form sends it. */
const allOn = Object.fromEntries(CUSTOMER_EMAIL_KINDS.map((kind) => [`send_${kind}`, 'yes']));
const checked = (html: string, kind: string) => new RegExp(`name="send_${kind}" value="yes" checked`).test(html);

for (const kind of await storeKinds()) {
  describe(`panel e-mails page with SMTP (${kind})`, () => {
    let inbox: SmtpInbox;
    let t: TestApp;
    before(async () => {
      inbox = await startSmtpInbox();
      t = await startTestApp(kind, {
        env: { SMTP_URL: inbox.url, SMTP_FROM: FROM, SMTP_SANDBOX_TO: 'customers', PANEL_SIGNUP: 'open' },
      });
    });
    after(async () => {
      await t.close();
      await inbox.close();
    });

    test('signed out, the page, a preview and both forms lead to the sign-in page and send nothing', async () => {
      for (const [method, path] of [
        ['GET', '/panel/emails'],
        ['GET', '/panel/emails/preview/RECEIPT'],
        ['POST', '/panel/emails'],
        ['POST', '/panel/emails/test'],
      ]) {
        const res = await fetch(`${t.url}${path}`, {
          method,
          redirect: 'manual',
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'kind=RECEIPT&csrf=x' }
            : {}),
        });
        assert.equal(res.status, 303, path);
        assert.equal(res.headers.get('location'), '/panel/signin', path);
      }
      assert.equal(inbox.messages.length, 0);
    });

    test('the page says e-mails are on and from which address; E-mails sits between Developers and Settings; every kind is on', async () => {
      const b = await signedUp(t, `on-${kind}@acme.test`);
      const page = await b.get('/panel/emails?env=sandbox');
      assert.equal(page.status, 200);
      assert.match(
        page.html,
        /Customer e-mails are on\. They are sent from <strong>receipts@opentill\.test<\/strong> with your name\./,
      );
      assert.match(
        page.html,
        />Developers<\/a><a href="\/panel\/emails\?env=sandbox" aria-current="page">E-mails<\/a><a href="\/panel\/settings/,
      );
      for (const k of CUSTOMER_EMAIL_KINDS) assert.ok(checked(page.html, k), `${k} is on`);
      assert.match(page.html, /placeholder="Acme Software"/);
      assert.match(page.html, /data-testid="no-emails">No sandbox e-mails yet\./);
      assert.doesNotMatch(page.html, /data-testid="send-test" disabled/);
      assert.doesNotMatch(
        page.html,
        /not to your test customers/,
        'this operator sends sandbox e-mails to the test customers',
      );
    });

    test('saved settings are shown again, kept on the vendor for both environments, and a bad reply-to is refused with nothing changed', async () => {
      const b = await signedUp(t, `save-${kind}@acme.test`);
      const someOn = Object.fromEntries(
        Object.entries(allOn).filter(([name]) => !['send_CANCELLED', 'send_REFUNDED'].includes(name)),
      );
      const saved = await b.post('/panel/emails?env=sandbox', {
        senderName: '  Acme Billing ',
        replyTo: 'help@acme.test',
        ...someOn,
      });
      assert.equal(saved.status, 303, saved.html);
      assert.equal(saved.location, '/panel/emails?env=sandbox&done=emails');
      const page = await b.get(saved.location);
      assert.match(page.html, /role="status">The e-mail settings are saved\./);
      assert.match(page.html, /name="senderName"[^>]*value="Acme Billing"/);
      assert.match(page.html, /name="replyTo"[^>]*value="help@acme.test"/);
      assert.deepEqual(
        CUSTOMER_EMAIL_KINDS.filter((k) => !checked(page.html, k)),
        ['CANCELLED', 'REFUNDED'],
      );
      const expected = { senderName: 'Acme Billing', replyTo: 'help@acme.test', off: ['CANCELLED', 'REFUNDED'] };
      assert.deepEqual((await t.services.catalog.requireVendor(b.vendorId)).emails, expected);
      assert.ok(
        !checked((await b.get('/panel/emails?env=production')).html, 'REFUNDED'),
        'production shows the same settings',
      );

      const refused = await b.post('/panel/emails?env=sandbox', {
        senderName: 'Someone Else',
        replyTo: 'not an address',
        ...allOn,
      });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /role="alert">[^<]*Reply-to/);
      assert.match(refused.html, /name="senderName"[^>]*value="Someone Else"/, 'what was typed is kept');
      assert.match(refused.html, /name="replyTo"[^>]*value="not an address"/);
      assert.ok(checked(refused.html, 'REFUNDED'), 'the ticks as sent');
      const long = await b.post('/panel/emails?env=sandbox', { senderName: 'x'.repeat(81), ...allOn });
      assert.equal(long.status, 400);
      assert.match(long.html, /at most 80 characters/);
      assert.deepEqual((await t.services.catalog.requireVendor(b.vendorId)).emails, expected, 'nothing changed');

      // Emptied, the fields fall back to the vendor's name and address.
      assert.equal((await b.post('/panel/emails?env=sandbox', { senderName: '', replyTo: '', ...allOn })).status, 303);
      assert.deepEqual((await t.services.catalog.requireVendor(b.vendorId)).emails, {
        senderName: null,
        replyTo: null,
        off: [],
      });
    });

    test('a form without its token, or with another session’s, is refused and changes nothing', async () => {
      const b = await signedUp(t, `csrf-${kind}@acme.test`);
      const other = await signedUp(t, `csrf-other-${kind}@acme.test`);
      const otherToken = /name="csrf" value="([^"]*)"/.exec((await other.get('/panel/emails')).html)![1]!;
      await b.get('/panel/emails');
      for (const token of [null, '', otherToken]) {
        const res = await b.post(
          '/panel/emails?env=sandbox',
          { senderName: 'Forged', replyTo: 'evil@example.com' },
          token,
        );
        assert.equal(res.status, 403, String(token));
        const test = await b.post('/panel/emails/test?env=sandbox', { kind: 'RECEIPT' }, token);
        assert.equal(test.status, 403);
      }
      assert.deepEqual((await t.services.catalog.requireVendor(b.vendorId)).emails, {
        senderName: null,
        replyTo: null,
        off: [],
      });
      assert.equal(inbox.to(`csrf-${kind}@acme.test`).length, 0);
    });

    test('every kind previews with its sample subject, From, Reply-To, the HTML in a sandboxed frame and the text; an unknown kind is not found', async () => {
      const b = await signedUp(t, `preview-${kind}@acme.test`);
      const vendor = await t.services.catalog.requireVendor(b.vendorId);
      for (const k of CUSTOMER_EMAIL_KINDS) {
        const sample = t.services.emails.preview(vendor, k, 'sandbox');
        const page = await b.get(`/panel/emails/preview/${k}?env=sandbox`);
        assert.equal(page.status, 200, k);
        assert.match(sample.subject, /^\[Test\] /);
        assert.ok(
          page.html.includes(`data-testid="subject">${escapeHtml(sample.subject)}<`),
          `${k}: ${sample.subject}`,
        );
        assert.ok(page.html.includes(escapeHtml(`Acme Software <${FROM}>`)), k);
        assert.ok(page.html.includes(`<dd>preview-${kind}@acme.test</dd>`), `${k}: replies go to the vendor's address`);
        // Sandboxed without scripts (the page's origin only lets it be laid out with the page: docs/decisions.md §36).
        assert.match(
          page.html,
          /<iframe class="email-frame" sandbox="allow-same-origin" srcdoc="&#60;!doctype html&#62;/,
        );
        assert.ok(page.html.includes(escapeHtml(sample.text.split('\n')[2]!)), `${k}: the text version`);
        assert.match(
          page.headers.get('content-security-policy')!,
          /style-src-attr 'unsafe-inline'; script-src 'nonce-/,
        );
      }
      const production = await b.get('/panel/emails/preview/RECEIPT?env=production');
      assert.match(production.html, /data-testid="subject">Your receipt from Acme Software</);
      for (const path of [
        '/panel/emails/preview/receipt',
        '/panel/emails/preview/NOPE',
        '/panel/emails/preview/__proto__',
      ]) {
        const missing = await b.get(`${path}?env=sandbox`);
        assert.equal(missing.status, 404, path);
        assert.match(missing.html, /There is no such e-mail here in sandbox/);
      }
      assert.doesNotMatch(
        (await b.get('/panel/emails')).headers.get('content-security-policy')!,
        /unsafe-inline/,
        'only the preview allows style attributes',
      );
    });

    test('"Send me a test" sends one e-mail of that kind to the signed-in vendor, as the settings say; an unknown kind sends nothing', async () => {
      const email = `test-${kind}@acme.test`;
      const b = await signedUp(t, email);
      await b.get('/panel/emails?env=sandbox');
      assert.equal(
        (await b.post('/panel/emails?env=sandbox', { senderName: 'Acme Billing', replyTo: 'help@acme.test', ...allOn }))
          .status,
        303,
      );
      await b.get('/panel/emails?env=sandbox');
      const sent = await b.post('/panel/emails/test?env=sandbox', { kind: 'RENEWED' });
      assert.equal(sent.status, 303, sent.html);
      assert.equal(sent.location, '/panel/emails?env=sandbox&done=test-sent');
      assert.match(
        (await b.get(sent.location!)).html,
        new RegExp(`role="status">A test e-mail is on its way to ${email}\\.`),
      );
      const mails = inbox.to(email);
      assert.equal(mails.length, 1);
      assert.equal(mails[0]!.subject, '[Test] Payment received: Example Pro');
      assert.deepEqual(mails[0]!.from?.value, [{ name: 'Acme Billing', address: FROM }]);
      assert.equal(mails[0]!.replyTo?.value[0]?.address, 'help@acme.test');
      assert.equal(inbox.messages.filter((m) => m.subject?.includes('Example Pro')).length, 1, 'to nobody else');

      const unknown = await b.post('/panel/emails/test?env=sandbox', { kind: 'receipt' });
      assert.equal(unknown.status, 400);
      assert.match(unknown.html, /role="alert">Choose which e-mail to send as a test\./);
      assert.equal(inbox.to(email).length, 1, 'nothing more sent');
    });

    test('a test the mail server refuses shows the server’s reason', async () => {
      const email = `bounce-${kind}@acme.test`;
      const b = await signedUp(t, email);
      inbox.unknownMailboxes.add(email);
      try {
        await b.get('/panel/emails?env=sandbox');
        const refused = await b.post('/panel/emails/test?env=sandbox', { kind: 'RECEIPT' });
        assert.equal(refused.status, 200);
        assert.match(refused.html, /role="alert">The mail server refused the test e-mail: 550[^<]*No such mailbox/);
      } finally {
        inbox.unknownMailboxes.delete(email);
      }
    });

    test('recent e-mails: a sent receipt and one the mail server refused, failed with its reason and linked to its transaction', async () => {
      const b = await signedUp(t, `list-${kind}@acme.test`);
      const scope = b.scope();
      const product = await t.services.catalog.createProduct(scope, {
        name: 'Acme Pro',
        type: 'ONETIME',
        prices: [{ currency: 'USD', value: 20 }],
      });
      const buy = async (email: string) => {
        const result = await t.services.purchases.purchase(scope, {
          productId: product.id,
          email,
          country: 'US',
          card: TEST_CARD,
        });
        assert.equal(result.status, 'PAID');
        return result.status === 'PAID' ? result.transaction.id : '';
      };
      const bounced = `gone-${kind}@example.com`;
      inbox.unknownMailboxes.add(bounced);
      const failedId = await buy(bounced);
      const sentId = await buy(`ann-${kind}@example.com`);
      await runWorkerOnce(t.services);
      inbox.unknownMailboxes.delete(bounced);

      const page = await b.get('/panel/emails?env=sandbox');
      const rows = [...page.html.matchAll(/<tr data-testid="email"[\s\S]*?<\/tr>/g)].map((m) => m[0]);
      assert.equal(rows.length, 2);
      const failed = rows.find((r) => r.includes(bounced))!;
      assert.match(failed, /data-status="FAILED" class="failed"/);
      assert.match(failed, /<span class="st bad">Failed<\/span><span class="why">550[^<]*No such mailbox/);
      assert.ok(
        failed.includes(`<td><a href="/panel/transactions/${failedId}?env=sandbox">Receipt</a>`),
        'the kind links to its transaction',
      );
      assert.ok(failed.includes(`<code>${failedId}</code>`));
      const sent = rows.find((r) => r.includes(sentId))!;
      assert.match(sent, /<span class="st good">Sent<\/span>/);
      assert.match(page.html, /data-testid="failed-count">One e-mail could not be delivered/);
      assert.match(
        (await b.get('/panel/emails?env=production')).html,
        /No production e-mails yet/,
        'each environment lists its own',
      );
    });
  });

  describe(`panel e-mails page without SMTP (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { env: { PANEL_SIGNUP: 'open' } });
    });
    after(() => t.close());

    test('the page says nothing is sent and why; the test buttons are off and a test POST sends nothing; previews still work', async () => {
      const b = await signedUp(t, `off-${kind}@acme.test`);
      const page = await b.get('/panel/emails?env=sandbox');
      assert.match(
        page.html,
        /Customer e-mails are off: the operator of this opentill has not configured SMTP \(<code>SMTP_URL<\/code> and <code>SMTP_FROM<\/code>\)\. Nothing is sent to your customers\./,
      );
      assert.equal([...page.html.matchAll(/data-testid="send-test" disabled>/g)].length, CUSTOMER_EMAIL_KINDS.length);
      assert.match(
        page.html,
        /Sandbox e-mails say “\[Test\]” in their subject and go to you \(off-[a-z]+@acme\.test\), not to your test customers\./,
      );
      const test = await b.post('/panel/emails/test?env=sandbox', { kind: 'RECEIPT' });
      assert.equal(test.location, '/panel/emails?env=sandbox&done=test-off');
      assert.match((await b.get(test.location!)).html, /role="alert">E-mails are off: SMTP is not configured\./);
      const preview = await b.get('/panel/emails/preview/RECEIPT?env=sandbox');
      assert.equal(preview.status, 200);
      assert.match(preview.html, /<dd>Acme Software \(not configured\)<\/dd>/);
      // Settings can be made ready before the operator turns e-mails on.
      await b.get('/panel/emails?env=sandbox');
      assert.equal(
        (await b.post('/panel/emails?env=sandbox', { senderName: 'Acme', ...allOn, send_RECEIPT: '' })).status,
        303,
      );
      assert.deepEqual((await t.services.catalog.requireVendor(b.vendorId)).emails.off, ['RECEIPT']);
    });

    test('a test POST with no kind, or one that is not a kind, is a 400 page', async () => {
      const b = await signedUp(t, `garbage-${kind}@acme.test`);
      for (const fields of [
        {},
        { kind: '' },
        { kind: 'x'.repeat(5000) },
        { kind: 'toString' },
        { kind: 'RECEIPT ' },
      ] as Record<string, string>[]) {
        const refused = await b.post('/panel/emails/test?env=sandbox', fields);
        assert.equal(refused.status, 400, JSON.stringify(fields).slice(0, 50));
        assert.match(refused.html, /role="alert">Choose which e-mail to send as a test\./);
      }
    });

    test('at most 10 test sends a minute from one address, then a "Too many requests" page', async () => {
      const b = await signedUp(t, `limit-${kind}@acme.test`);
      const token = /name="csrf" value="([^"]*)"/.exec((await b.get('/panel/emails?env=sandbox')).html)![1]!;
      const send = () =>
        fetch(`${t.url}/panel/emails/test?env=sandbox`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf: token, kind: 'RECEIPT' }),
        });
      const first = await send();
      assert.equal(first.headers.get('x-ratelimit-limit'), '10');
      // Earlier tests of this app sent some already: the rest of the minute's 10 go through.
      for (let left = Number(first.headers.get('x-ratelimit-remaining')); left > 0; left--)
        assert.notEqual((await send()).status, 429);
      const limited = await send();
      assert.equal(limited.status, 429);
      assert.match(await limited.text(), /<title>Too many requests/);
    });
  });
}
