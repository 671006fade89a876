import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli, failedWith, parseJson, succeeded } from '../helpers/cli.ts';

/**
 * `opentill operator create|password|list` as the README has the operator run it (docs/decisions.md §26):
 * a generated password printed once, a second login of one e-mail refused, a new password on demand.
 */
const root = mkdtempSync(join(tmpdir(), 'opentill-operator-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));
const run = (...args: string[]) =>
  cli(args, { OPENTILL_SECRET: 'operator-cli-secret-0123456789-0123456789', OPENTILL_DATA_DIR: root });

test('operator create prints a password once; the same e-mail again is refused; password gives a new one; list shows the logins', async () => {
  assert.match((await run('operator', 'list')).stdout, /^No operator logins yet/m);
  const created = await run('operator', 'create', '--email', 'Ops@Example.com');
  succeeded(created);
  assert.match(
    created.stdout,
    /^Operator ops@example\.com \(TC-OP_\S+\)\nPassword: [A-Za-z2-9]{24}\nSign in at \S+\/operator/m,
  );
  failedWith(await run('operator', 'create', '--email', 'ops@example.com'), /is an operator already/);
  failedWith(await run('operator', 'create', '--email', 'not-an-email'), /e-mail/i);
  const first = /Password: (\S+)/.exec(created.stdout)![1];
  const renewed = parseJson(await run('operator', 'password', '--email', 'ops@example.com', '--json'));
  assert.equal(renewed.email, 'ops@example.com');
  assert.notEqual(renewed.password, first);
  failedWith(await run('operator', 'password', '--email', 'nobody@example.com'), /No operator signs in as/);
  const listed = parseJson(await run('operator', 'list', '--json'));
  assert.deepEqual(
    listed.map((u: { email: string }) => u.email),
    ['ops@example.com'],
  );
  assert.equal(JSON.stringify(listed).includes('password'), false, 'no password or hash is listed');
});
