import type { Command } from 'commander';
import { formatMinor } from '../../domain/money/index.ts';
import type { BillingProgress } from '../../domain/billing/index.ts';
import { positiveNumber } from '../option-parsers.ts';
import { fail, print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

interface SandboxPurchaseOptions {
  vendor: string;
  product: string;
  email: string;
  country: string;
  region?: string;
  currency?: string;
  coupon?: string;
  card: string;
  expiry: string;
  json?: boolean;
}

/** `opentill sandbox purchase|clock`: try a product end to end without a browser, and move sandbox time. */
export function registerSandboxCommands(program: Command) {
  const sandbox = program.command('sandbox').description('sandbox tools');

  registerPurchase(sandbox);
  registerClock(sandbox);
}

/** `opentill sandbox purchase`: a purchase with a test card, through the checkout's own code. */
function registerPurchase(sandbox: Command) {
  sandbox
    .command('purchase')
    .description('buy a sandbox product with a test card, through the same code as the checkout')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--product <id>', 'product or customized product id')
    .requiredOption('--email <email>', "customer's e-mail")
    .option('--country <code>', 'customer country (ISO 3166-1 alpha-2)', 'US')
    .option('--region <code>', 'US state or Canadian province')
    .option('--currency <code>', "currency to pay in (default: the country's)")
    .option('--coupon <code>', 'a coupon code of the product')
    .option('--card <number>', 'test card number', '4242424242424242')
    .option('--expiry <MM/YY>', 'card expiry', '12/34')
    .option('--json', 'print JSON')
    .action(async (opts: SandboxPurchaseOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const expiry = /^(\d{1,2})\/(\d{2,4})$/.exec(opts.expiry);
          if (!expiry) fail('--expiry must look like 12/34.', !!opts.json);
          await requireVendor(services, opts.vendor, !!opts.json);
          const result = await services.purchases.purchase(
            { vendorId: opts.vendor, environment: 'sandbox' },
            {
              productId: opts.product,
              email: opts.email,
              country: opts.country,
              region: opts.region,
              currency: opts.currency,
              coupon: opts.coupon,
              card: { number: opts.card, expMonth: Number(expiry[1]), expYear: Number(expiry[2]) },
            },
          );
          if (result.status === 'DECLINED') fail(`Payment declined (${result.code}): ${result.message}`, !!opts.json);
          if (result.status === 'PENDING') fail(result.message, !!opts.json);
          const { transaction: t, quote: q, licence } = result;
          print(!!opts.json, { transaction: t, licence }, () =>
            [
              `Paid: ${t.id} (${t.status})`,
              `  ${t.productName} for ${t.email} in ${t.country}: ${formatMinor(q.netMinor, q.currency)} + ${q.taxName || 'tax'} ${formatMinor(q.taxMinor, q.currency)} = ${formatMinor(q.totalMinor, q.currency)} ${q.currency}`,
              ...(licence ? [`  licence: ${licence}`] : []),
            ].join('\n'),
          );
        }),
      ),
    );
}

/** `opentill sandbox clock`: a vendor's sandbox time read, or moved forward with the billing that fell due. */
function registerClock(sandbox: Command) {
  sandbox
    .command('clock')
    .description(
      "read a vendor's sandbox clock, or move it forward (at most 366 days at a time) and bill what became due",
    )
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--days <n>', 'move forward by this many days', positiveNumber)
    .option('--seconds <n>', 'move forward by this many seconds', positiveNumber)
    .option('--to <time>', 'move forward to this ISO-8601 instant')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; days?: number; seconds?: number; to?: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const scope = { vendorId: opts.vendor, environment: 'sandbox' as const };
          const by = (opts.days ?? 0) * 86400 + (opts.seconds ?? 0);
          const progress = (billing: BillingProgress) =>
            billing.caughtUp
              ? 'Billing: caught up.'
              : `Billing: ${billing.pending} subscriptions still due, the oldest since ${billing.oldestDue}.`;
          if (!by && !opts.to) {
            const reading = await services.sandboxClock.read(scope);
            const ahead = `${Math.floor(reading.offsetMs / 1000)} s ahead of real time`;
            return print(
              !!opts.json,
              reading,
              () => `Sandbox time of ${opts.vendor}: ${reading.now} (${ahead})\n${progress(reading.billing)}`,
            );
          }
          // This command is a process of its own: it does the billing that became due itself, like `worker --once`.
          await services.sandboxClock.advance(scope, opts.to ? { to: opts.to } : { seconds: Math.round(by) });
          const moved = await services.sandboxClock.catchUp(scope);
          const b = moved.billed;
          print(!!opts.json, moved, () =>
            [
              `Sandbox time of ${opts.vendor} is now ${moved.now}.`,
              `Billing: ${b.renewed} renewed, ${b.declined} declined, ${b.ended} ended, ${b.failed} cancelled after failed retries, ${b.expiredOffers} offers expired.`,
              ...b.errors.map((e) => `  held: ${e}`),
              ...(moved.billing.caughtUp ? [] : [progress(moved.billing)]),
            ].join('\n'),
          );
        }),
      ),
    );
}
