import type { Command } from 'commander';
import type { Environment } from '../../domain/model.ts';
import { environment } from '../option-parsers.ts';
import { print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

/** `--limit`: a whole number, or "none" for no limit; the domain checks the range. */
const limitOf = (value: string): number | null => (value.trim().toLowerCase() === 'none' ? null : Number(value));

export const activationWords = (limit: number | null) =>
  limit === null ? '' : `, each key activated on at most ${limit} instance${limit === 1 ? '' : 's'}`;

/**
 * `opentill product create --activation-limit` and `opentill product activation-limit`: how many
 * instances each licence key of a product may be activated on (docs/decisions.md §40).
 */
export function registerActivationLimitCommand(program: Command) {
  const product = program.commands.find((c) => c.name() === 'product')!;
  product.commands
    .find((c) => c.name() === 'create')!
    .option('--activation-limit <n>', 'instances each licence key may be activated on (default: no limit)', Number);
  product
    .command('activation-limit')
    .description('set how many instances each licence key of a product may be activated on')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--product <id>', 'product id (TC-PR_...)')
    .requiredOption('--limit <n>', 'a whole number from 1, or "none" for no limit')
    .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; product: string; limit: string; env: Environment; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const scope = { vendorId: opts.vendor, environment: opts.env };
          const changed = await services.catalog.updateProduct(scope, opts.product, {
            activationLimit: limitOf(opts.limit),
          });
          print(!!opts.json, changed, () =>
            changed.activationLimit === null
              ? `Product ${changed.id}: each licence key may be activated on any number of instances.`
              : `Product ${changed.id}: each licence key may be activated on at most ${changed.activationLimit} instances (keys activated on more keep them; new activations wait for a free one).`,
          );
        }),
      ),
    );
}
