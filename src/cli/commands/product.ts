import type { Command } from 'commander';
import type { Environment } from '../../domain/model.ts';
import { formatMinor } from '../../domain/money/index.ts';
import type { PriceText } from '../../domain/catalog/index.ts';
import { environment, prices } from '../option-parsers.ts';
import { print, run } from '../output.ts';
import { table } from '../table.ts';
import { requireVendor, withServices } from '../with-services.ts';
import { activationWords } from './product-activation-limit.ts';
import { addedOptions } from './product-seats.ts';

interface ProductCreateOptions {
  vendor: string;
  name: string;
  type: string;
  price: PriceText[];
  env: Environment;
  frequency?: string;
  trialDays?: number;
  licences?: boolean;
  activationLimit?: number | null;
  seats?: string;
  seatTier?: string[];
  description?: string;
  json?: boolean;
}

/** `opentill product create|list`. */
export function registerProductCommands(program: Command) {
  const product = program.command('product').description('manage products');

  product
    .command('create')
    .description('create a product')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--name <name>', 'product name')
    .requiredOption('--type <type>', 'ONETIME, SUBSCRIPTION or VAULTED')
    .requiredOption('--price <CUR:AMOUNT>', 'net price, repeatable; USD is required', prices)
    .option('--env <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--frequency <frequency>', 'DAILY, WEEKLY, MONTHLY, HALF_YEARLY or YEARLY (subscriptions)')
    .option('--trial-days <days>', 'trial length in days (subscriptions)', (v) => Number(v))
    .option('--licences', 'issue a licence key with every purchase')
    .option('--description <text>', 'description')
    .option('--json', 'print JSON')
    .action(async (opts: ProductCreateOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const created = await services.catalog.createProduct(
            { vendorId: opts.vendor, environment: opts.env },
            {
              name: opts.name,
              type: opts.type,
              prices: opts.price,
              chargeFrequency: opts.frequency,
              trialDays: opts.trialDays,
              issuesLicences: !!opts.licences,
              ...addedOptions(opts),
              description: opts.description,
            },
          );
          print(!!opts.json, created, () =>
            [
              `Product ${created.name} created in ${created.environment}: ${created.id}`,
              `  ${created.type}${created.type === 'SUBSCRIPTION' ? ` ${created.chargeFrequency}` : ''}${created.trialDays ? `, ${created.trialDays}-day trial` : ''}${created.issuesLicences ? `, issues licences${activationWords(created.activationLimit)}` : ''}`,
              `  prices: ${Object.entries(created.prices)
                .map(([c, m]) => `${formatMinor(m, c)} ${c}`)
                .join(', ')}`,
            ].join('\n'),
          );
        }),
      ),
    );

  product
    .command('list')
    .description("list a vendor's products in one environment")
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--environment <environment>', 'sandbox or production', environment, 'sandbox')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; environment: Environment; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const products = await services.catalog.listProducts({
            vendorId: opts.vendor,
            environment: opts.environment,
          });
          print(!!opts.json, products, () =>
            products.length === 0
              ? `No products in ${opts.environment}: opentill product create --vendor ${opts.vendor} --env ${opts.environment} ...`
              : table(
                  ['ID', 'NAME', 'TYPE', 'PRICES', 'CREATED'],
                  products.map((p) => [
                    p.id,
                    p.archivedAt ? `${p.name} (archived)` : p.name,
                    p.type === 'SUBSCRIPTION' ? `${p.type} ${p.chargeFrequency}` : p.type,
                    Object.entries(p.prices)
                      .map(([c, m]) => `${formatMinor(m, c)} ${c}`)
                      .join(', '),
                    p.createdAt,
                  ]),
                ),
          );
        }),
      ),
    );
}
