import type { Command } from 'commander';
import type { Coupon, Environment } from '../../domain/model.ts';
import { formatMinor } from '../../domain/money/index.ts';
import type { PriceText } from '../../domain/catalog/index.ts';
import { environment, prices } from '../option-parsers.ts';
import { print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

const couponLine = (c: Coupon) =>
  `${c.id}  ${c.code}  ${
    c.percentOff !== null
      ? `${c.percentOff}% off`
      : `${Object.entries(c.amountsOff)
          .map(([cur, m]) => `${formatMinor(m, cur)} ${cur}`)
          .join(', ')} off`
  }  product ${c.productId}  ${lastingTerms(c)}${c.expiresAt ? `  expires ${c.expiresAt}` : ''}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}`;

/** How long it lasts and whom it is for (docs/decisions.md §38), as `create` takes them. */
function lastingTerms(c: Coupon): string {
  const terms = [c.duration === 'repeating' ? `repeating ${c.durationPeriods} periods` : c.duration];
  terms.push(`used ${c.redemptions}${c.maxRedemptions !== null ? `/${c.maxRedemptions}` : ''}`);
  if (c.maxPerCustomer !== null) terms.push(`max ${c.maxPerCustomer} per customer`);
  if (c.firstPurchaseOnly) terms.push('first purchase only');
  if (c.otherProductIds.length) terms.push(`also ${c.otherProductIds.join(',')}`);
  if (c.frequencies) terms.push(`only ${c.frequencies.join(',')}`);
  if (c.startsAt) terms.push(`starts ${c.startsAt}`);
  return terms.join('  ');
}

/** A repeatable option's values, in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A whole number the domain checks the range of. */
const whole = (value: string) => Number(value);

interface CouponCreateOptions {
  vendor: string;
  product: string;
  code: string;
  percent?: string;
  amount?: PriceText[];
  expires?: string;
  duration?: string;
  periods?: number;
  maxRedemptions?: number;
  maxPerCustomer?: number;
  alsoProduct?: string[];
  frequency?: string[];
  firstPurchaseOnly?: boolean;
  starts?: string;
  env: Environment;
  json?: boolean;
}

/** `opentill coupon create|list|revoke`: how codes behave is in docs/decisions.md, "14. Checkout, public API, coupons, migrations, client script". */
export function registerCouponCommands(program: Command) {
  const coupon = program.command('coupon').description("manage a product's discount codes");

  coupon
    .command('create')
    .description('create a coupon: a percentage off (--percent) or an amount off (--amount, USD required)')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--product <id>', 'product id (TC-PR_...)')
    .requiredOption('--code <code>', 'what customers type, e.g. LAUNCH25 (case does not matter)')
    .option('--percent <percent>', 'percent off the net price, e.g. 25 or 12.5')
    .option('--amount <CUR:AMOUNT>', 'amount off the net price, repeatable; USD is required', prices)
    .option('--expires <date>', 'last moment it can be used, e.g. 2030-12-31T23:59:59Z')
    .option('--starts <date>', 'first moment it can be used (the sandbox reads its own clock), e.g. 2030-01-01')
    .option('--duration <duration>', 'once (the first payment, the default), forever, or repeating (with --periods)')
    .option('--periods <n>', 'billing periods a repeating coupon discounts; the first payment is the first', whole)
    .option('--max-redemptions <n>', 'purchases it may be used for in all', whole)
    .option('--max-per-customer <n>', 'purchases one customer e-mail may use it for', whole)
    .option('--first-purchase-only', "only for an e-mail's first paid purchase from the vendor")
    .option('--also-product <id>', 'another product it applies to, repeatable', collect)
    .option('--frequency <frequency>', 'only subscriptions charged so (MONTHLY, YEARLY, ...), repeatable', collect)
    .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--json', 'print JSON')
    .action(async (opts: CouponCreateOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const created = await services.coupons.create(
            { vendorId: opts.vendor, environment: opts.env },
            {
              productId: opts.product,
              code: opts.code,
              percentOff: opts.percent,
              amountsOff: opts.amount,
              expiresAt: opts.expires,
              duration: opts.duration,
              durationPeriods: opts.periods,
              maxRedemptions: opts.maxRedemptions,
              maxPerCustomer: opts.maxPerCustomer,
              otherProductIds: opts.alsoProduct,
              frequencies: opts.frequency,
              firstPurchaseOnly: opts.firstPurchaseOnly,
              startsAt: opts.starts,
            },
          );
          print(!!opts.json, created, () => `Coupon created in ${created.environment}: ${couponLine(created)}`);
        }),
      ),
    );

  coupon
    .command('list')
    .description("list a vendor's coupons")
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; env: Environment; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const all = await services.coupons.list({ vendorId: opts.vendor, environment: opts.env });
          print(!!opts.json, all, () => (all.length ? all.map(couponLine).join('\n') : 'No coupons.'));
        }),
      ),
    );

  coupon
    .command('revoke')
    .description('stop a coupon from being used')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--coupon <id>', 'coupon id (TC-CO_...)')
    .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; coupon: string; env: Environment; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await services.coupons.revoke({ vendorId: opts.vendor, environment: opts.env }, opts.coupon);
          print(!!opts.json, { id: opts.coupon, revoked: true }, () => `Coupon ${opts.coupon} is revoked.`);
        }),
      ),
    );
}
