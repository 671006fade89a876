import type { Command } from 'commander';
import type { Services } from '../../services.ts';
import { fail, print, run } from '../output.ts';
import { withServices } from '../with-services.ts';

/**
 * `opentill vendor fee --vendor V [--fee 3%+0.30USD | --default]`: shows a vendor's platform fee, or
 * sets one of its own, or returns it to PLATFORM_FEE. A new fee applies to payments booked from then on.
 */
export function registerFeeCommand(vendor: Command) {
  vendor
    .command('fee')
    .description(
      "show a vendor's platform fee (the fee on each of its payments, written like PLATFORM_FEE: 5%+0.50USD, 5%, 0.30EUR or 0), " +
        'set one of its own with --fee, or return it to PLATFORM_FEE with --default; payments booked before keep theirs',
    )
    .requiredOption('--vendor <id>', 'the vendor (TC-VE_...)')
    .option('--fee <fee>', "the vendor's own fee, such as 3%+0.30USD")
    .option('--default', "remove the vendor's own fee: PLATFORM_FEE applies again")
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; fee?: string; default?: boolean; json?: boolean }) =>
      run(!!opts.json, () => {
        if (opts.fee !== undefined && opts.default) fail('Give --fee <fee> or --default, not both.', !!opts.json);
        return withServices(async (services) => {
          const changing = opts.fee !== undefined || opts.default;
          const { vendor, fee, own } = changing
            ? await services.catalog.setPlatformFee(opts.vendor, opts.fee ?? null)
            : await current(services.catalog, opts.vendor);
          print(
            !!opts.json,
            { vendorId: vendor.id, platformFee: fee, own },
            () =>
              `${vendor.name} (${vendor.id}) ${changing ? 'now pays' : 'pays'} a platform fee of ${fee} on each payment` +
              (own ? ' (its own; --default returns it to PLATFORM_FEE).' : ' (PLATFORM_FEE, the default).'),
          );
        });
      }),
    );
}

async function current(catalog: Services['catalog'], vendorId: string) {
  const vendor = await catalog.requireVendor(vendorId);
  return { vendor, ...catalog.platformFeeOf(vendor) };
}
