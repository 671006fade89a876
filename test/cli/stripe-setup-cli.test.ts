import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';

/**
 * `opentill stripe setup` as the README's "Taking real payments" runs it (issue 35): against the Stripe
 * stand-in it registers the endpoint and prints the signing secret once; when Stripe cannot be reached
 * or refuses the key it says in one line what to do, never the SDK's own "An error occurred with our
 * connection to Stripe".
 */
const SECRET = 'stripe-setup-test-secret-0123456789-0123456789';

describe('opentill stripe setup', { concurrency: 2 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-stripe-setup-'));
  let s: StripeStandIn;
  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
  });
  after(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });
  let dirs = 0;
  const env = (more: Record<string, string> = {}) => ({
    OPENTILL_SECRET: SECRET,
    OPENTILL_DATA_DIR: join(root, `data-${++dirs}`),
    BASE_URL: 'https://pay.example.com',
    STRIPE_SECRET_KEY: s.secretKey,
    STRIPE_PUBLISHABLE_KEY: s.publishableKey,
    STRIPE_API_URL: s.url,
    ...more,
  });

  test('registers the webhook endpoint and prints its signing secret once; run again, it changes nothing', async () => {
    // The stand-in delivers to loopback only: BASE_URL is where opentill would serve here.
    const loopback = { BASE_URL: 'http://127.0.0.1:3999' };
    const first = await cli(['stripe', 'setup'], env(loopback));
    succeeded(first);
    assert.match(first.stderr, /is not https; Stripe delivers live events only to https endpoints/);
    const secret = /Set STRIPE_WEBHOOK_SECRET=(whsec_\S+) and restart opentill/.exec(first.stdout)?.[1];
    assert.ok(secret, first.stdout);
    assert.match(first.stdout, /created: http:\/\/127\.0\.0\.1:3999\/webhooks\/stripe/);
    const again = await cli(['stripe', 'setup'], env({ ...loopback, STRIPE_WEBHOOK_SECRET: secret }));
    succeeded(again);
    assert.match(again.stdout, /unchanged: http:\/\/127\.0\.0\.1:3999\/webhooks\/stripe/);
    assert.match(again.stdout, /^STRIPE_WEBHOOK_SECRET is set\.$/m);
    assert.ok(!again.stdout.includes(secret), 'the secret is printed only when Stripe shows it');
  });

  test('Stripe unreachable (a closed port): one line saying where it tried and what to do, exit 1, nothing else', async () => {
    // Port 1: below the ephemeral range, so no other test's server can be given it meanwhile, as a port
    // found free and let go can be (test/cli/doctor.test.ts met it).
    const closed = 1;
    const result = await cli(['stripe', 'setup'], env({ STRIPE_API_URL: `http://127.0.0.1:${closed}` }));
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `opentill: Stripe cannot be reached at http://127.0.0.1:${closed}, STRIPE_API_URL (connect ECONNREFUSED 127.0.0.1:${closed}): check STRIPE_API_URL and that this machine can reach it; then run \`opentill stripe setup\` again.\n`,
    );
    assert.doesNotMatch(result.stderr, /An error occurred with our connection|unexpected error/);

    // The sandbox's keys: the command to run again is the sandbox's; --json says the same as one value.
    const sandbox = await cli(
      ['stripe', 'setup', '--sandbox', '--json'],
      env({
        STRIPE_API_URL: `http://127.0.0.1:${closed}`,
        STRIPE_SANDBOX_SECRET_KEY: s.secretKey,
        STRIPE_SANDBOX_PUBLISHABLE_KEY: s.publishableKey,
      }),
    );
    assert.equal(sandbox.code, 1);
    const { error, message } = parseJson(sandbox) as { error: string; message: string };
    assert.equal(error, 'FAILED');
    assert.match(message, /^Stripe cannot be reached at .*; then run `opentill stripe setup --sandbox` again\.$/);
  });

  test('a secret key Stripe refuses: names the variable and where to copy the key from', async () => {
    const result = await cli(['stripe', 'setup'], env({ STRIPE_SECRET_KEY: 'sk_test_not_this_account' }));
    assert.equal(result.code, 1);
    assert.equal(result.stderr.split('\n').length, 2, 'one line');
    assert.match(
      result.stderr,
      /^opentill: Stripe refused STRIPE_SECRET_KEY \(Invalid API Key provided: .*\)\. Copy the secret key again from the Stripe dashboard \(Developers → API keys\); then run `opentill stripe setup` again\.\n$/,
    );
    assert.ok(!result.stderr.includes('sk_test_not_this_account'), 'the key itself is not printed');
  });
});
