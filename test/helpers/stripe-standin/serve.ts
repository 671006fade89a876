import { renameSync, writeFileSync } from 'node:fs';
import { startStripeStandIn } from './index.ts';

/**
 * The stand-in as a process of its own, to rehearse the README's "Taking real payments" without a Stripe
 * account: `node --import tsx test/helpers/stripe-standin/serve.ts [file]` listens on loopback, delivers
 * webhooks to the endpoints registered with it, and prints the settings that point opentill at it (its
 * test keys, STRIPE_API_URL and STRIPE_JS_URL) as one `export` line, also written to `file` when given,
 * for `. file`. It runs until stopped (Ctrl-C).
 */
const s = await startStripeStandIn({ webhookDelivery: 'auto' });
const settings = {
  STRIPE_SECRET_KEY: s.secretKey,
  STRIPE_PUBLISHABLE_KEY: s.publishableKey,
  STRIPE_API_URL: s.url,
  STRIPE_JS_URL: s.jsUrl,
};
const line = `export ${Object.entries(settings)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ')}\n`;
const file = process.argv[2];
// Written aside and renamed into place, so whoever waits for the file (test/cli/readme-going-live) never
// reads it created and still empty: under a loaded machine, once, it did.
if (file) {
  writeFileSync(`${file}.partial`, line, { mode: 0o600 });
  renameSync(`${file}.partial`, file);
}
process.stdout.write(`The Stripe stand-in listens at ${s.url} (Ctrl-C stops it). Point opentill at it:\n${line}`);

const stop = () => void s.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
