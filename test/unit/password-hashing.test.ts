import assert from 'node:assert/strict';
import { scryptSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { passwordHasher } from '../../src/domain/accounts/index.ts';

/**
 * Panel and console passwords (src/domain/accounts/panel-secrets.ts): a new hash takes the configured
 * cost, a stored one is checked at the cost written in it, whatever the server's cost is now.
 */
const PASSWORD = 'correct horse battery';

describe('password hashing', () => {
  test('by default a hash is scrypt at N=2^15, r=8, p=1 with a 16-byte salt, and only its password matches', async () => {
    const hasher = passwordHasher();
    const stored = await hasher.hash(PASSWORD);
    const [scheme, N, r, p, salt, key] = stored.split('$');
    assert.deepEqual([scheme, N, r, p], ['scrypt', '32768', '8', '1']);
    assert.equal(Buffer.from(salt!, 'base64url').length, 16);
    assert.equal(Buffer.from(key!, 'base64url').length, 32);
    assert.equal(await hasher.matches(PASSWORD, stored), true);
    assert.equal(await hasher.matches(`${PASSWORD}!`, stored), false);
    assert.notEqual(await hasher.hash(PASSWORD), stored, 'each hash has a salt of its own');
  });

  test('the cost names N for new hashes', async () => {
    assert.match(await passwordHasher(10).hash(PASSWORD), /^scrypt\$1024\$8\$1\$/);
    assert.match(await passwordHasher(12).hash(PASSWORD), /^scrypt\$4096\$8\$1\$/);
  });

  test('a stored hash is checked at its own N, r and p, so a server whose cost changed still lets its users in', async () => {
    const cheap = await passwordHasher(10).hash(PASSWORD);
    const dear = await passwordHasher(15).hash(PASSWORD);
    assert.equal(await passwordHasher(15).matches(PASSWORD, cheap), true);
    assert.equal(await passwordHasher(10).matches(PASSWORD, dear), true);
    assert.equal(await passwordHasher(15).matches('another password', cheap), false);
  });

  test('a hash written at another N does not match: N is part of what was derived', async () => {
    const stored = await passwordHasher(10).hash(PASSWORD);
    assert.equal(await passwordHasher(10).matches(PASSWORD, stored.replace('$1024$', '$2048$')), false);
  });

  test('a true hash at a cost below 2^10 is refused: a leaked one would fall to guessing too cheaply', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(PASSWORD, salt, 32, { N: 512, r: 8, p: 1 });
    const weak = `scrypt$512$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    assert.equal(await passwordHasher(10).matches(PASSWORD, weak), false);
    const fair = scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 });
    const taken = `scrypt$1024$8$1$${salt.toString('base64url')}$${fair.toString('base64url')}`;
    assert.equal(await passwordHasher(10).matches(PASSWORD, taken), true, 'the same hash made at 2^10 is taken');
  });

  test("an unknown account's check does the work of a known one's, so the answer's time does not tell them apart", async () => {
    // CPU time, not wall time: what the check did, however busy the machine is. A derive at 2^15 costs
    // about 100 ms of CPU; an answer that skipped it costs well under a millisecond.
    const hasher = passwordHasher(15);
    const cpu = async (check: () => Promise<boolean>) => {
      const before = process.cpuUsage();
      assert.equal(await check(), false);
      const { user, system } = process.cpuUsage(before);
      return (user + system) / 1000;
    };
    const stored = await hasher.hash(PASSWORD);
    const known = await cpu(() => hasher.matches('not the password', stored));
    const unknown = await cpu(() => hasher.matches('not the password', undefined));
    assert.ok(unknown > known / 4, `unknown ${unknown.toFixed(1)} ms of CPU against known ${known.toFixed(1)} ms`);
  });

  test('an unknown account, another scheme or a cost out of range is no match, never an error', async () => {
    const hasher = passwordHasher(10);
    const stored = await hasher.hash(PASSWORD);
    const [, , , , salt, key] = stored.split('$');
    assert.equal(await hasher.matches(PASSWORD, undefined), false);
    for (const other of [
      `bcrypt$1024$8$1$${salt}$${key}`,
      `scrypt$512$8$1$${salt}$${key}`,
      `scrypt$262144$8$1$${salt}$${key}`,
      `scrypt$1000$8$1$${salt}$${key}`,
      `scrypt$1024$0$1$${salt}$${key}`,
      `scrypt$1024$8$9$${salt}$${key}`,
      `scrypt$1024$8$1$$${key}`,
      '',
    ])
      assert.equal(await hasher.matches(PASSWORD, other), false, other);
  });
});
