import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';

/** Settings parsed at start-up (docs/decisions.md §11): what TRUST_PROXY and SQLITE_FILE accept and mean. */
const dataDir = mkdtempSync(join(tmpdir(), 'opentill-config-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const load = (env: Record<string, string>) =>
  loadConfig({ OPENTILL_SECRET: 'config-test-secret-0123456789-0123456789', OPENTILL_DATA_DIR: dataDir, ...env });

const refused = (value: string, pattern: RegExp) =>
  assert.throws(
    () => load({ TRUST_PROXY: value }),
    (err: Error) => pattern.test(err.message) && /TRUST_PROXY=127\.0\.0\.1,10\.0\.0\.0\/8/.test(err.message),
    `TRUST_PROXY=${value} is refused with a message that says what to write instead`,
  );

describe('TRUST_PROXY', () => {
  test('unset, empty or false trusts no proxy', () => {
    assert.equal(load({}).trustProxy, false);
    assert.equal(load({ TRUST_PROXY: '' }).trustProxy, false);
    assert.equal(load({ TRUST_PROXY: 'false' }).trustProxy, false);
  });

  test('true is refused at start: it would let any client choose its address', () => {
    refused('true', /any client's X-Forwarded-For/);
    refused('TRUE', /any client's X-Forwarded-For/);
  });

  test('a list of proxy addresses and CIDR ranges, IPv4 and IPv6, is what Fastify is given', () => {
    assert.equal(load({ TRUST_PROXY: '127.0.0.1' }).trustProxy, '127.0.0.1');
    assert.equal(
      load({ TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8 ' }).trustProxy,
      '127.0.0.1,10.0.0.0/8,::1,fd00::/8',
    );
    assert.equal(load({ TRUST_PROXY: '192.168.1.7/32,2001:db8::/128' }).trustProxy, '192.168.1.7/32,2001:db8::/128');
  });

  test('a host name, a malformed address or range, or an empty entry is refused', () => {
    for (const value of [
      'proxy.internal',
      '10.0.0.256',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/8/8',
      '10.0.0.0/x',
      '10.0.0.0/',
      '127.0.0.1,,10.0.0.1',
      'yes',
    ]) {
      refused(value, /is not an IP address or CIDR range/);
    }
  });

  test('a range covering every address is refused like true', () => {
    refused('0.0.0.0/0', /covers every address/);
    refused('127.0.0.1,::/0', /covers every address/);
  });

  test('a count of proxies is refused: counting cannot tell a proxy from a client that writes X-Forwarded-For itself', () => {
    for (const value of ['0', '1', '2']) refused(value, /is a number of proxies/);
  });
});

describe('SQLITE_FILE', () => {
  test(':memory: means an in-memory database, not a file of that name in the working directory', () => {
    assert.equal(load({ SQLITE_FILE: ':memory:' }).sqliteFile, ':memory:');
  });

  test('a path is resolved; unset means opentill.db in the data directory', () => {
    assert.equal(load({}).sqliteFile, join(dataDir, 'opentill.db'));
    assert.equal(load({ SQLITE_FILE: join(dataDir, 'other.db') }).sqliteFile, join(dataDir, 'other.db'));
    assert.equal(existsSync(join(dataDir, 'opentill.db')), false, 'loading the configuration creates no database');
  });
});

describe('SMTP_URL and SMTP_FROM', () => {
  test('unset: customer e-mails are off', () => {
    assert.equal(load({}).smtp, undefined);
  });

  test('an smtp:// or smtps:// URL with the address to send from turns them on', () => {
    assert.deepEqual(
      load({ SMTP_URL: 'smtps://user:pass@mail.example.com:465', SMTP_FROM: 'receipts@example.com' }).smtp,
      {
        url: 'smtps://user:pass@mail.example.com:465',
        from: 'receipts@example.com',
        sandboxTo: 'vendor',
      },
    );
  });

  test('half a configuration, another scheme, or a sender that is not one address is refused at start, saying what to write', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ SMTP_URL: 'smtp://mail.example.com' }, /SMTP_FROM must be the address/],
      [{ SMTP_FROM: 'receipts@example.com' }, /set SMTP_URL/],
      [{ SMTP_URL: 'http://mail.example.com', SMTP_FROM: 'receipts@example.com' }, /smtp:\/\/ or smtps:\/\//],
      [{ SMTP_URL: 'not a url', SMTP_FROM: 'receipts@example.com' }, /smtp:\/\/ or smtps:\/\//],
      [
        { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'Shop <receipts@example.com>' },
        /SMTP_FROM must be the address/,
      ],
      [
        { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'receipts@example.com', SMTP_SANDBOX_TO: 'everyone' },
        /SMTP_SANDBOX_TO must be vendor/,
      ],
    ];
    for (const [env, pattern] of cases) assert.throws(() => load(env), pattern, JSON.stringify(env));
  });
});

describe('PANEL_SIGNUP', () => {
  test('unset or empty: closed, so that nobody makes a vendor account without the operator', () => {
    assert.equal(load({}).panelSignup, 'closed');
    assert.equal(load({ PANEL_SIGNUP: '' }).panelSignup, 'closed');
  });

  test('closed, invite and open are taken, in any case', () => {
    for (const mode of ['closed', 'invite', 'open'] as const) {
      assert.equal(load({ PANEL_SIGNUP: mode }).panelSignup, mode);
      assert.equal(load({ PANEL_SIGNUP: ` ${mode.toUpperCase()} ` }).panelSignup, mode);
    }
  });

  test('anything else is refused at start, naming the three values and what each does', () => {
    for (const value of ['yes', 'true', 'invite-only', 'opened']) {
      assert.throws(
        () => load({ PANEL_SIGNUP: value }),
        (err: Error) =>
          err.message.includes(`not "${value}"`) &&
          /closed \(the default[^]*invite \([^]*open \(anyone/.test(err.message),
        value,
      );
    }
  });
});

describe('what only config.ts reads from the environment', () => {
  test('where the secret came from: OPENTILL_SECRET, else the file in the data directory', () => {
    assert.equal(load({}).secretSource, 'environment');
    const own = mkdtempSync(join(tmpdir(), 'opentill-config-secret-'));
    try {
      const config = loadConfig({ OPENTILL_DATA_DIR: own });
      assert.equal(config.secretSource, 'file');
      assert.equal(loadConfig({ OPENTILL_DATA_DIR: own }).secret, config.secret, 'the file keeps it');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('a process a serve cluster started says so through its environment', () => {
    assert.equal(load({}).clusterWorker, false);
    assert.equal(load({ OPENTILL_CLUSTER_WORKER: '1' }).clusterWorker, true);
    assert.equal(load({ OPENTILL_CLUSTER_WORKER: '0' }).clusterWorker, false);
  });
});

describe('PASSWORD_HASH_COST', () => {
  test("unset, new passwords cost scrypt's 2^15; 10 to 17 are taken", () => {
    assert.equal(load({}).passwordHashCost, 15);
    assert.equal(load({ PASSWORD_HASH_COST: '10' }).passwordHashCost, 10);
    assert.equal(load({ PASSWORD_HASH_COST: '17' }).passwordHashCost, 17);
  });

  test('a cost outside 10 to 17, or not a whole number, is refused at start, naming the range', () => {
    for (const value of ['9', '18', '0', '-15', '15.5', 'high'])
      assert.throws(
        () => load({ PASSWORD_HASH_COST: value }),
        (err: Error) => /PASSWORD_HASH_COST/.test(err.message),
        value,
      );
    assert.throws(() => load({ PASSWORD_HASH_COST: '9' }), /10 to 17/);
  });
});
