import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ROOT, cli, failedWith, spawnCli, succeeded } from '../helpers/cli.ts';
import { freePort, logLines, ServerProcess, within } from '../helpers/server-process.ts';

/**
 * What `opentill serve` refuses at start, and what it keeps private (docs/decisions.md §3, §11):
 * TRUST_PROXY=true, a short secret file, and group or other access to the data directory.
 */
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-hardening-'));
  dirs.push(dir);
  return join(dir, 'data');
}
const SECRET = 'hardening-test-secret-0123456789-0123456789';
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Runs `opentill serve` expecting it to refuse to start; returns what it printed. */
async function refusedStart(env: NodeJS.ProcessEnv, data = dataDir()) {
  const server = new ServerProcess(await freePort(), data, { env });
  try {
    const exit = await within(server.exited, 'serve to exit');
    assert.deepEqual(exit, { code: 1, signal: null }, `stdout:\n${server.stdout}\nstderr:\n${server.stderr}`);
    assert.doesNotMatch(server.stdout, /listening/);
    assert.doesNotMatch(server.stderr, /\n\s+at /, 'no stack trace');
    return server.stderr;
  } finally {
    await server.kill();
  }
}

describe('opentill serve refuses an unsafe configuration', () => {
  test('TRUST_PROXY=true: exit 1 with what to write instead', async () => {
    const stderr = await refusedStart({ TRUST_PROXY: 'true' });
    assert.match(stderr, /^opentill: TRUST_PROXY=true would believe any client's X-Forwarded-For header\. /);
    assert.match(stderr, /TRUST_PROXY=127\.0\.0\.1,10\.0\.0\.0\/8/);
  });

  test('a malformed TRUST_PROXY entry is named', async () => {
    assert.match(
      await refusedStart({ TRUST_PROXY: '127.0.0.1,proxy.internal' }),
      /"proxy\.internal" is not an IP address or CIDR range/,
    );
  });

  test('TRUST_PROXY=true stops every command, not only serve', async () => {
    failedWith(
      await cli(['migrate'], { TRUST_PROXY: 'true', OPENTILL_SECRET: SECRET, OPENTILL_DATA_DIR: dataDir() }),
      /^opentill: TRUST_PROXY=true/,
    );
  });

  for (const [what, content] of [
    ['an empty', ''],
    ['a 31-character', 'x'.repeat(31) + '\n'],
  ] as const) {
    test(`${what} secret file: exit 1, saying to delete it (which invalidates API credentials) or to set OPENTILL_SECRET`, async () => {
      const data = dataDir();
      mkdirSync(data, { recursive: true });
      writeFileSync(join(data, 'secret'), content);
      const stderr = await refusedStart({ OPENTILL_SECRET: '' }, data);
      assert.match(
        stderr,
        new RegExp(
          `The server secret in ${join(data, 'secret')} has ${content.trim().length} characters; it needs at least 32`,
        ),
      );
      assert.match(stderr, /Delete the file/);
      assert.match(stderr, /every API credential and hosted link made with the old secret stops working/);
      assert.match(stderr, /or set OPENTILL_SECRET/);
      assert.equal(readFileSync(join(data, 'secret'), 'utf8'), content, 'the file is left as it was');
      assert.equal(existsSync(join(data, 'opentill.db')), false, 'nothing was started');
    });
  }
});

describe('the data directory is private to the account opentill runs as', () => {
  test('a first start under umask 000 makes the directory 0700 and the secret, database, -wal and -shm 0600', async () => {
    const data = dataDir();
    const umask = process.umask(0o000);
    let server: ServerProcess | undefined;
    try {
      server = new ServerProcess(await freePort(), data, { env: { OPENTILL_SECRET: '' } });
    } finally {
      process.umask(umask);
    }
    try {
      await within(server.started(), 'the start');
      assert.equal(mode(data), '700');
      for (const file of ['secret', 'opentill.db', 'opentill.db-wal', 'opentill.db-shm'])
        assert.equal(mode(join(data, file)), '600', file);
      assert.ok(readFileSync(join(data, 'secret'), 'utf8').trim().length >= 32);
      assert.equal(logLines(server.stdout).filter((line) => line.paths).length, 0, 'nothing needed tightening');
    } finally {
      await server.kill();
    }
  });

  test('what others could read is made private at the next start, and the log says which paths', async () => {
    const data = dataDir();
    const first = new ServerProcess(await freePort(), data, { env: { OPENTILL_SECRET: '' } });
    try {
      await within(first.started(), 'the first start');
    } finally {
      first.signal('SIGTERM');
      await within(first.exited, 'the first server to stop');
    }
    chmodSync(data, 0o755);
    chmodSync(join(data, 'secret'), 0o644);
    chmodSync(join(data, 'opentill.db'), 0o664);
    writeFileSync(join(data, 'exchange-rates.xml'), readFileSync(join(ROOT, 'src', 'files', 'exchange-rates.xml')), {
      mode: 0o644,
    });
    chmodSync(join(data, 'exchange-rates.xml'), 0o644);

    const second = new ServerProcess(await freePort(), data, { env: { OPENTILL_SECRET: '' } });
    try {
      await within(second.started(), 'the second start');
      assert.equal(mode(data), '700');
      for (const file of ['secret', 'opentill.db', 'exchange-rates.xml'])
        assert.equal(mode(join(data, file)), '600', file);
      const warning = await within(
        (async () => {
          for (;;) {
            const line = logLines(second.stdout).find((l) => l.msg?.startsWith('removed group and other access'));
            if (line) return line;
            await new Promise((done) => setTimeout(done, 20));
          }
        })(),
        'the warning',
      );
      assert.equal(warning.level, 40);
      assert.deepEqual(warning.paths, [
        `${data} (755 -> 700)`,
        `${join(data, 'secret')} (644 -> 600)`,
        `${join(data, 'exchange-rates.xml')} (644 -> 600)`,
        `${join(data, 'opentill.db')} (664 -> 600)`,
      ]);
    } finally {
      await second.kill();
    }
  });
});

describe('SQLITE_FILE=:memory:', () => {
  test('is a database in memory: serve answers with its demo data and no file named :memory: appears', async () => {
    const data = dataDir();
    const port = await freePort();
    const env = {
      SQLITE_FILE: ':memory:',
      OPENTILL_SECRET: SECRET,
      OPENTILL_DATA_DIR: data,
      PORT: String(port),
      HOST: '127.0.0.1',
    };
    const { child, exited } = spawnCli(['serve'], env);
    let stdout = '';
    child.stdout!.on('data', (chunk: string) => (stdout += chunk));
    try {
      await within(
        (async () => {
          while (!/^API reference: /m.test(stdout)) await new Promise((done) => setTimeout(done, 20));
        })(),
        'the start',
      );
      assert.match(stdout, /store: SQLite in memory \(nothing is kept when the process ends\)/);
      const credential = stdout.match(/^Sandbox API credential \(shown only now\): (\S+)$/m)![1]!;
      const res = await fetch(`http://127.0.0.1:${port}/sandbox/v1/transactions/bob%40example.com`, {
        headers: { authorization: credential },
      });
      assert.equal(res.status, 200);
      assert.ok(((await res.json()) as unknown[]).length > 0);
      for (const dir of [ROOT, data])
        assert.equal(existsSync(join(dir, ':memory:')), false, `no :memory: file in ${dir}`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('opentill migrate on :memory: migrates and leaves no file behind', async () => {
    const result = await cli(['migrate'], {
      SQLITE_FILE: ':memory:',
      OPENTILL_SECRET: SECRET,
      OPENTILL_DATA_DIR: dataDir(),
    });
    succeeded(result);
    assert.match(result.stdout, /Schema is up to date on sqlite/);
    assert.equal(existsSync(join(ROOT, ':memory:')), false);
  });
});
