import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';
import { freePort, SERVER_SECRET, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * PANEL_SIGNUP through the real `opentill` (docs/decisions.md §19): `vendor invite --email` prints an
 * invitation only where someone may sign up; `vendor list` says which vendors are sandbox only;
 * `vendor enable-production` lets one reach production, which a running server hears at once. An
 * unknown PANEL_SIGNUP stops the server and every command.
 */
describe('opentill and PANEL_SIGNUP', () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-signup-cli-'));
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) await server.kill();
    rmSync(root, { recursive: true, force: true });
  });

  /** A data directory, a port, and the CLI and server on them with the same settings. */
  async function install(name: string, settings: Record<string, string>) {
    const dataDir = join(root, name);
    const port = await freePort();
    const env = {
      OPENTILL_DATA_DIR: dataDir,
      OPENTILL_SECRET: SERVER_SECRET,
      BASE_URL: `http://127.0.0.1:${port}`,
      OPENTILL_DEMO: 'false',
      ...settings,
    };
    return {
      run: (...args: string[]) => cli(args, env),
      async serve() {
        const server = new ServerProcess(port, dataDir, { env: { ...env, OPENTILL_WORKER: 'false' } });
        servers.push(server);
        await within(server.started(), 'the server start');
        return server;
      },
    };
  }

  /** Posts a sign-up (open, or an invitation's) or sign-in form as a browser does: its double-submit token, then the form; the answer. */
  async function submit(url: string, fields: Record<string, string>) {
    const page = await fetch(url);
    const cookie = page.headers
      .getSetCookie()
      .find((c) => c.startsWith('ot_panel_csrf='))!
      .split(';')[0]!;
    const csrf = /name="csrf" value="([^"]*)"/.exec(await page.text())![1]!;
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, password: 'correct horse battery', ...fields }),
    });
    return {
      status: res.status,
      session: res.headers
        .getSetCookie()
        .find((c) => c.startsWith('ot_panel='))
        ?.split(';')[0],
    };
  }
  const signUp = async (url: string, fields: Record<string, string>) => (await submit(url, fields)).status;

  test('closed by default: the first start prints a panel login that works; vendor invite --email is refused; an unknown PANEL_SIGNUP stops serve and every command', async () => {
    const closed = await install('closed', { OPENTILL_DEMO: 'true' });
    failedWith(
      await closed.run('vendor', 'invite', '--email', 'someone@example.test'),
      /PANEL_SIGNUP is closed here, so nobody can sign up/,
    );
    failedWith(await closed.run('vendor', 'invite'), /Give either --vendor <id> .* or --email <address>/);
    failedWith(
      await closed.run('vendor', 'invite', '--vendor', 'TC-VE_x', '--email', 'someone@example.test'),
      /Give either --vendor/,
    );
    const server = await closed.serve();
    assert.match(server.stdout, /^Panel sign-up: closed \(add vendors with opentill vendor create/m);
    const [, email, password] = /^Panel login \(shown only now\): \S+ as (\S+), password (\S+)$/m.exec(server.stdout)!;
    const signedIn = await submit(`${server.url}/panel/signin`, { email: email!, password: password! });
    assert.equal(signedIn.status, 303);
    assert.equal(
      (await fetch(`${server.url}/panel`, { headers: { cookie: signedIn.session! }, redirect: 'manual' })).status,
      200,
      "the demo vendor's panel",
    );
    assert.equal((await fetch(`${server.url}/panel/signup`)).status, 403);

    const wrong = await install('wrong', { PANEL_SIGNUP: 'sometimes' });
    failedWith(await wrong.run('vendor', 'list'), /PANEL_SIGNUP must be closed \(the default[^]*not "sometimes"/);
    const port = await freePort();
    const refused = new ServerProcess(port, join(root, 'wrong'), { env: { PANEL_SIGNUP: 'sometimes' } });
    servers.push(refused);
    assert.notEqual((await within(refused.exited, 'the refused start')).code, 0);
    assert.match(refused.stderr, /PANEL_SIGNUP must be closed/);
  });

  test('invite: the printed link signs up once, for its e-mail, and that vendor may use production', async () => {
    const opentill = await install('invite', { PANEL_SIGNUP: 'invite' });
    const invited = await opentill.run('vendor', 'invite', '--email', 'New@Example.test', '--json');
    succeeded(invited);
    const { url, email, expiresAt } = parseJson(invited) as { url: string; email: string; expiresAt: string };
    assert.equal(email, 'New@Example.test');
    const server = await opentill.serve();
    assert.match(server.stdout, /^Panel sign-up: by invitation/m);
    assert.ok(url.startsWith(`${server.url}/panel/signup/`), url);
    assert.ok(Date.parse(expiresAt) - Date.now() > 6.9 * 24 * 3600_000, 'valid for a week');
    const text = await opentill.run('vendor', 'invite', '--email', 'other@example.test');
    succeeded(text);
    assert.match(
      text.stdout,
      /^Send this link to other@example\.test\. It creates one vendor account that signs in with that e-mail/m,
    );
    assert.match(text.stdout, /^http:\/\/127\.0\.0\.1:\d+\/panel\/signup\/[\w-]+\.[\w-]+$/m);

    assert.equal(await signUp(url, { company: 'Invited Co' }), 303);
    const listed = parseJson(await opentill.run('vendor', 'list', '--json')) as {
      name: string;
      email: string;
      productionEnabled: boolean;
    }[];
    assert.deepEqual(
      listed.map(({ name, email, productionEnabled }) => ({ name, email, productionEnabled })),
      [{ name: 'Invited Co', email: 'New@Example.test', productionEnabled: true }],
    );
    assert.equal((await fetch(url)).status, 410, 'the link is spent');
    failedWith(
      await opentill.run('vendor', 'invite', '--email', 'new@example.test'),
      /signs in to a vendor's panel already/,
    );
  });

  test('open: a vendor that signed up is sandbox only, with no production credential, until vendor enable-production; the server hears it at once', async () => {
    const opentill = await install('open', { PANEL_SIGNUP: 'open' });
    const server = await opentill.serve();
    assert.match(
      server.stdout,
      /^Panel sign-up: open to anyone; new vendors stay in the sandbox until opentill vendor enable-production/m,
    );
    assert.equal(await signUp(`${server.url}/panel/signup`, { company: 'Open Co', email: 'open@example.test' }), 303);
    const [vendor] = parseJson(await opentill.run('vendor', 'list', '--json')) as {
      id: string;
      productionEnabled: boolean;
    }[];
    assert.equal(vendor!.productionEnabled, false);
    const table = await opentill.run('vendor', 'list');
    assert.match(table.stdout, /^ID +NAME +E-MAIL +CREATED +PRODUCTION +STATE +SELLER IDENTITY$/m);
    assert.match(
      table.stdout,
      new RegExp(`^${vendor!.id} +Open Co +open@example\\.test +\\S+ +sandbox only +active `, 'm'),
    );
    failedWith(
      await opentill.run('credential', 'create', '--vendor', vendor!.id, '--environment', 'production'),
      new RegExp(
        `Production is not enabled for vendor ${vendor!.id}.*opentill vendor enable-production --vendor ${vendor!.id}`,
      ),
    );

    const enabled = await opentill.run('vendor', 'enable-production', '--vendor', vendor!.id);
    succeeded(enabled);
    assert.match(enabled.stdout, /Vendor Open Co \(TC-VE_\S+\) can now use production/);
    assert.match(
      (await opentill.run('vendor', 'enable-production', '--vendor', vendor!.id)).stdout,
      /could use production already; nothing changed/,
    );
    failedWith(
      await opentill.run('vendor', 'enable-production', '--vendor', 'TC-VE_nobody'),
      /Vendor TC-VE_nobody was not found/,
    );
    assert.match((await opentill.run('vendor', 'list')).stdout, new RegExp(`^${vendor!.id} .* yes +active `, 'm'));

    const issued = await opentill.run(
      'credential',
      'create',
      '--vendor',
      vendor!.id,
      '--environment',
      'production',
      '--json',
    );
    succeeded(issued);
    const res = await fetch(`${server.url}/v1/transactions/a%40b.test`, {
      headers: { authorization: parseJson(issued).authorization },
    });
    assert.equal(res.status, 200);
  });
});
