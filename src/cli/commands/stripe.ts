import type { Command } from 'commander';
import { fail, io, print, run } from '../output.ts';
import { configOrFail } from '../with-services.ts';

/** `opentill stripe setup`: checks the Stripe keys and registers opentill's webhook endpoint (docs: README, "Taking real payments"). */
export function registerStripeCommands(program: Command) {
  const stripe = program.command('stripe').description('the Stripe account opentill takes real payments through');

  stripe
    .command('setup')
    .description(
      "check the Stripe keys and register opentill's webhook endpoint with the events it needs; prints what it did",
    )
    .option('--sandbox', 'the sandbox (STRIPE_SANDBOX_* test-mode keys) instead of production (STRIPE_*)')
    .option(
      '--domain <host>',
      "register a domain for Apple Pay and the other wallets (the checkout's host, and each site that embeds it); repeatable",
      (value: string, all: string[] = []) => [...all, value],
    )
    .option('--json', 'print JSON')
    .action(async (opts: { sandbox?: boolean; json?: boolean; domain?: string[] }) =>
      run(!!opts.json, async () => {
        const json = !!opts.json;
        const config = configOrFail(json);
        const prefix = opts.sandbox ? 'STRIPE_SANDBOX_' : 'STRIPE_';
        const keys = opts.sandbox ? config.stripe.sandbox : config.stripe.production;
        if (!keys)
          fail(
            `Set ${prefix}SECRET_KEY and ${prefix}PUBLISHABLE_KEY first (Stripe dashboard, Developers → API keys).`,
            json,
          );
        const webhookUrl = `${opts.sandbox ? config.sandboxUrl : config.baseUrl}/webhooks/stripe`;
        if (!opts.sandbox && !webhookUrl.startsWith('https://'))
          io().err(
            `opentill: note: ${webhookUrl} is not https; Stripe delivers live events only to https endpoints (set BASE_URL).\n`,
          );
        const { setupStripe, StripeSetupError } = await import('../../gateways/stripe-setup.ts');
        const access = { keys, apiUrl: config.stripe.apiUrl, secretKeyName: `${prefix}SECRET_KEY` };
        const report = await setupStripe({ ...access, webhookUrl, domains: opts.domain ?? [] }).catch((err: unknown) =>
          // Stripe unreachable, or the key refused: one line saying what to do, and nothing registered.
          err instanceof StripeSetupError
            ? fail(`${err.message}; then run \`opentill stripe setup${opts.sandbox ? ' --sandbox' : ''}\` again.`, json)
            : Promise.reject(err),
        );
        const secretNeeded = report.signingSecret && report.signingSecret !== keys.webhookSecret;
        print(json, report, () =>
          [
            `Stripe account ${report.account.id} (${report.account.livemode ? 'live' : 'test'} mode${report.account.chargesEnabled === false ? ', charges NOT enabled yet' : ''}): the keys work.`,
            `Webhook endpoint ${report.webhook.id} ${report.webhook.action}: ${report.webhook.url}`,
            `  events: ${report.webhook.events.join(', ')}`,
            secretLine(prefix, !!secretNeeded, report.signingSecret, keys.webhookSecret),
            ...report.domains.map(domainLine),
          ].join('\n'),
        );
      }),
    );
}

/** A domain as setup reports it (src/gateways/stripe-setup.ts). */
interface DomainReport {
  domain: string;
  id: string;
  action: 'created' | 'enabled' | 'unchanged';
  applePay: { status: string; problem: string | null };
}

/** A registered domain's line: what was done, and whether Apple Pay shows there (or why not). */
function domainLine(d: DomainReport): string {
  const done = { created: 'registered', enabled: 'enabled again', unchanged: 'already registered' }[d.action];
  const applePay =
    d.applePay.status === 'active'
      ? 'Apple Pay active'
      : `Apple Pay ${d.applePay.status}: ${d.applePay.problem ?? 'see the Stripe dashboard (Settings → Payment method domains)'}`;
  return `Domain ${d.domain} ${done} for wallets (${d.id}): ${applePay}.`;
}

/** The webhook signing secret's line: a new one to set (Stripe shows it only now), one set, or none. */
function secretLine(
  prefix: string,
  secretNeeded: boolean,
  signingSecret: string | null,
  webhookSecret?: string,
): string {
  if (secretNeeded)
    return `Set ${prefix}WEBHOOK_SECRET=${signingSecret} and restart opentill: Stripe shows this signing secret only now.`;
  if (webhookSecret) return `${prefix}WEBHOOK_SECRET is set.`;
  return `${prefix}WEBHOOK_SECRET is not set: copy the endpoint's signing secret from the Stripe dashboard (Developers → Webhooks).`;
}
