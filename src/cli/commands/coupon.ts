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
  }  product ${c.productId}${c.expiresAt ? `  expires ${c.expiresAt}` : ''}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}`;

interface CouponCreateOptions {
  vendor: string;
  product: string;
  code: string;
  percent?: string;
  amount?: PriceText[];
  expires?: string;
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
