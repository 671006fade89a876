import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { cli, ROOT, succeeded } from '../helpers/cli.ts';

/**
 * The README's "Taking real payments" as someone follows it (issue 35): the commands of its code blocks,
 * as written, in order, against the Stripe stand-in started by the line the README gives for rehearsing,
 * each succeeding; and every route the section names answering as a route of opentill (never "There is
 * no …", as `POST /v1/generate-product-url` did). `opentill serve` and the purchase in a browser are
 * what test/browser/card-canary.test.ts does.
 */
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(
  README.indexOf('## Taking real payments'),
  README.indexOf('| Setting | Meaning |\n|---|---|\n| `STRIPE_'),
);
const SECRET = 'readme-going-live-secret-0123456789-0123456789';

/** The lines of the section's shell blocks, without their comments. */
function shellLines(): string[] {
  const blocks = [...SECTION.matchAll(/```sh\n([^]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** A shell line's words: spaces split, double quotes group. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("the README's going-live steps, as written, with the Stripe stand-in", () => {
  const dir = mkdtempSync(join(tmpdir(), 'opentill-readme-live-'));
  const cleanup: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('the stand-in line, stripe setup, doctor, the vendor, its identity and a production product: each as written, each succeeding', async () => {
    const lines = shellLines();
    const standIn = lines.find((l) => l.startsWith('node --import tsx test/helpers/stripe-standin/serve.ts'))!;
    assert.ok(standIn, 'the section says how to start the stand-in');
    const [, ...args] = words(standIn);
    const envFile = join(dir, args.at(-1)!);
    const child = spawn(process.execPath, [...args.slice(0, -1), envFile], { cwd: ROOT, stdio: 'ignore' });
    cleanup.push(() => child.kill());
    for (let i = 0; i < 200 && !existsSync(envFile); i++) await new Promise((done) => setTimeout(done, 50));
    const env: Record<string, string> = {
      OPENTILL_SECRET: SECRET,
      OPENTILL_DATA_DIR: join(dir, 'data'),
      ...Object.fromEntries(
        words(readFileSync(envFile, 'utf8').replace(/^export /, '')).map((w) => w.split('=') as [string, string]),
      ),
      // The rehearsal's BASE_URL; the stand-in delivers events to loopback only.
      BASE_URL: 'http://localhost:3000',
    };
    assert.match(env.STRIPE_API_URL!, /^http:\/\/127\.0\.0\.1:\d+$/);

    const ran: string[] = [];
    const said: Record<string, string> = {};
    for (const line of lines.filter(
      (l) => l.startsWith('opentill ') || l.startsWith('export STRIPE_WEBHOOK_SECRET='),
    )) {
      if (line.startsWith('export ')) {
        env.STRIPE_WEBHOOK_SECRET = /STRIPE_WEBHOOK_SECRET=(whsec_\w+)/.exec(said['stripe setup']!)![1]!;
        continue;
      }
      const argv = words(line)
        .slice(1)
        .map((w) => w.replace('TC-VE_...', said.vendor ?? 'TC-VE_...'));
      if (argv[0] === 'serve') continue;
      const result = await cli(argv, env);
      succeeded(result);
      said[argv.slice(0, 2).join(' ')] = result.stdout;
      if (argv[0] === 'vendor' && argv[1] === 'create') said.vendor = /TC-VE_\w+/.exec(result.stdout)![0];
      ran.push(argv.slice(0, 2).join(' '));
    }
    assert.deepEqual(ran, ['stripe setup', 'doctor', 'vendor create', 'vendor settings', 'product create']);
    assert.match(said['doctor']!, /^OK {4}production payments: Stripe account acct_\w+ \(test mode\) answers/m);
    assert.match(said['doctor']!, /Nothing to fix\./);
    assert.match(said['product create']!, /created in production: TC-PR_\w+/);
  });

  test('every route the section names is a route of opentill', async () => {
    const t: TestApp = await startTestApp('sqlite');
    cleanup.push(() => t.close());
    const v = await t.newVendor();
    const named = new Set<string>();
    for (const m of SECTION.matchAll(/`(GET|POST) (\/v1\/[^`\s]+)`/g)) named.add(`${m[1]} ${m[2]}`);
    for (const m of SECTION.matchAll(/curl (-X POST )?-H '[^']*' https:\/\/pay\.example\.com(\/v1\/\S+)/g))
      named.add(`${m[1] ? 'POST' : 'GET'} ${m[2]}`);
    for (const m of SECTION.matchAll(/`\{base_url\}(\/payment\/product\/[^`]+)`/g)) named.add(`GET ${m[1]}`);
    assert.ok(named.size >= 5, [...named].join(', '));
    for (const route of named) {
      const [method, path] = route.split(' ') as [string, string];
      const concrete = path.replace(/\{id\}|TC-(TR|PR)_\.\.\./g, 'TC-PR_00000000000000000000000000');
      const res = await fetch(`${t.url}${concrete}`, {
        method,
        headers: { authorization: v.credentials.production.authorization },
      });
      const text = await res.text();
      assert.ok(!/There is no/.test(text) && res.status !== 405, `${route}: ${res.status} ${text.slice(0, 200)}`);
    }
  });
});
