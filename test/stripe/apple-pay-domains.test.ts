import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin/index.ts';
import { cli, parseJson, succeeded } from '../helpers/cli.ts';

/**
 * `opentill stripe setup --domain` registers the domains Apple Pay (and Google Pay, Link, PayPal) show
 * on in the Payment Element (docs/decisions.md §37), through Stripe's payment method domains: once, so
 * setup run again changes nothing; a domain disabled in the dashboard is enabled again; a URL or an
 * address is refused before Stripe is asked, saying what to give instead.
 */
const SECRET = 'apple-pay-domains-test-secret-0123456789-012345';

describe('opentill stripe setup --domain', () => {
  const root = mkdtempSync(join(tmpdir(), 'opentill-domains-'));
  let s: StripeStandIn;
  before(async () => {
    s = await startStripeStandIn({ webhookDelivery: 'manual' });
  });
  after(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });
  const env = () => ({
    OPENTILL_SECRET: SECRET,
    OPENTILL_DATA_DIR: join(root, 'data'),
    // The stand-in delivers webhooks to loopback only: BASE_URL is where opentill would serve here.
    BASE_URL: 'http://127.0.0.1:3999',
    STRIPE_SECRET_KEY: s.secretKey,
    STRIPE_PUBLISHABLE_KEY: s.publishableKey,
    STRIPE_API_URL: s.url,
  });
  const domains = async () => (await s.client().paymentMethodDomains.list({ limit: 100 })).data;

  test('registers each domain once, says whether Apple Pay is active there, and enables one disabled since', async () => {
    const first = await cli(['stripe', 'setup', '--domain', 'pay.example.com', '--domain', 'Shop.Example.com'], env());
    succeeded(first);
    assert.match(first.stdout, /^Domain pay\.example\.com registered for wallets \(pmd_\w+\): Apple Pay active\.$/m);
    assert.match(first.stdout, /^Domain shop\.example\.com registered for wallets \(pmd_\w+\): Apple Pay active\.$/m);
    assert.deepEqual((await domains()).map((d) => d.domain_name).sort(), ['pay.example.com', 'shop.example.com']);

    const shop = (await domains()).find((d) => d.domain_name === 'shop.example.com')!;
    await s.client().paymentMethodDomains.update(shop.id, { enabled: false });
    const again = await cli(
      ['stripe', 'setup', '--json', '--domain', 'pay.example.com', '--domain', 'shop.example.com'],
      env(),
    );
    const report = parseJson(again) as { domains: { domain: string; action: string }[] };
    assert.deepEqual(
      report.domains.map((d) => [d.domain, d.action]),
      [
        ['pay.example.com', 'unchanged'],
        ['shop.example.com', 'enabled'],
      ],
    );
    assert.equal((await domains()).length, 2, 'nothing registered twice');
    assert.equal((await domains()).find((d) => d.id === shop.id)!.enabled, true);
  });

  test('a domain where Apple Pay cannot show is registered, saying why', async () => {
    const result = await cli(['stripe', 'setup', '--domain', 'checkout.localhost'], env());
    succeeded(result);
    assert.match(
      result.stdout,
      /Domain checkout\.localhost registered .*: Apple Pay inactive: checkout\.localhost is not a public domain name/,
    );
  });

  test('a URL or an address is refused before Stripe is asked, saying what to give', async () => {
    const before = (await domains()).length;
    const url = await cli(['stripe', 'setup', '--domain', 'https://shop.example.org/checkout'], env());
    assert.equal(url.code, 1);
    assert.match(url.stderr, /--domain takes a host name, not a URL: give --domain shop\.example\.org/);
    const address = await cli(['stripe', 'setup', '--domain', '10.0.0.1'], env());
    assert.equal(address.code, 1);
    assert.match(address.stderr, /--domain 10\.0\.0\.1 is not a public host name/);
    assert.equal((await domains()).length, before);
  });
});
