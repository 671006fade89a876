import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { invalidInput } from '../../domain/errors.ts';
import { LOGO_MAX_BYTES, type SellerDetailsInput } from '../../domain/catalog/index.ts';
import { yesOrNo } from '../option-parsers.ts';
import { fail, print, run } from '../output.ts';
import { table } from '../table.ts';
import { withServices } from '../with-services.ts';
import { registerFeeCommand } from './vendor-fee.ts';
import { registerSuspensionCommands, suspensionText } from './vendor-suspension.ts';

/** `opentill vendor create|list|invite|enable-production|settings|fee|suspend|resume`. */
export function registerVendorCommands(program: Command) {
  const vendor = program.command('vendor').description('manage vendors');
  registerAccessCommands(vendor);
  registerCreate(vendor);
  registerList(vendor);
  registerSettings(vendor);
  registerFeeCommand(vendor);
  registerSuspensionCommands(vendor);
}

/** `opentill vendor create`: a vendor with its production and sandbox credentials. */
function registerCreate(vendor: Command) {
  vendor
    .command('create')
    .description(
      'create a vendor (it may use production) and print its production and sandbox API credentials (shown once)',
    )
    .requiredOption('--name <name>', 'vendor name')
    .requiredOption('--email <email>', 'contact e-mail')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; email: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const created = await services.catalog.createVendor(opts);
          const production = await services.credentials.issue({ vendorId: created.id, environment: 'production' });
          const sandbox = await services.credentials.issue({ vendorId: created.id, environment: 'sandbox' });
          print(
            !!opts.json,
            { vendor: created, credentials: { production: production.authorization, sandbox: sandbox.authorization } },
            () =>
              [
                `Vendor ${created.name} created: ${created.id}`,
                'API credentials (Authorization header values; shown only now, keep them secret):',
                `  production (${services.urls.base('production')}/v1): ${production.authorization}`,
                `  sandbox    (${services.urls.base('sandbox')}/v1): ${sandbox.authorization}`,
              ].join('\n'),
          );
        }),
      ),
    );
}

/** `opentill vendor list`: every vendor, whether it may use production, its state, and what its seller identity lacks. */
function registerList(vendor: Command) {
  vendor
    .command('list')
    .description(
      'list the vendors: id, name, e-mail, when each was created, whether it may use production (sandbox only: an open sign-up not yet enabled), ' +
        'whether it is suspended, and what of the seller identity its production checkout needs is missing',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const vendors = (await services.catalog.vendorStatuses()).map(({ vendor: v, seller, fee }) => ({
            id: v.id,
            name: v.name,
            email: v.email,
            createdAt: v.createdAt,
            productionEnabled: v.productionEnabled,
            suspension: v.suspension,
            seller: seller.seller,
            identityMissing: seller.missing,
            platformFee: fee.fee,
          }));
          print(!!opts.json, vendors, () =>
            vendors.length === 0
              ? 'No vendors yet: opentill vendor create --name ... --email ...'
              : table(
                  ['ID', 'NAME', 'E-MAIL', 'CREATED', 'PRODUCTION', 'STATE', 'SELLER IDENTITY'],
                  vendors.map((v) => [
                    v.id,
                    v.name,
                    v.email,
                    v.createdAt,
                    v.productionEnabled ? 'yes' : 'sandbox only',
                    suspensionText(v),
                    identityText(v.seller, v.identityMissing),
                  ]),
                ),
          );
        }),
      ),
    );
}

/** What a vendor's production checkout still needs, as `vendor list` and `doctor` say it. */
export function identityText(seller: 'vendor' | 'operator', missing: readonly string[]): string {
  if (missing.length === 0) return seller === 'operator' ? "complete (the operator's)" : 'complete';
  return `${seller === 'operator' ? "the operator's " : ''}${missing.join(', ')} missing`;
}

/** `opentill vendor settings`: a vendor's conversion, framing and invoice details. */
function registerSettings(vendor: Command) {
  vendor
    .command('settings')
    .description("change a vendor's settings")
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option(
      '--allow-conversion <yes|no>',
      'customers may pay in their own currency converted from USD (yes), or only in the listed currencies, else USD (no)',
      yesOrNo,
    )
    .option(
      '--admin-frame-origins <origins>',
      'origins whose pages may frame the admin tool, comma-separated (e.g. https://admin.acme.test), or "none"',
    )
    .option(
      '--seller-name <name>',
      'the legal name invoices show as the seller ("" clears it: the vendor name is shown)',
    )
    .option('--address <lines>', 'the seller address for invoices, lines separated by "|" or new lines ("" clears it)')
    .option('--country <code>', 'the seller country, two letters (e.g. DE)')
    .option('--tax-id <id>', 'the seller VAT or tax ID for invoices')
    .option('--support-email <email>', 'the e-mail invoices give for questions')
    .option('--logo <file>', 'a PNG or JPEG of at most 100 KB shown on invoices, or "none" to remove it')
    .option('--json', 'print JSON')
    .action(async (opts: SettingsOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const seller = sellerOptions(opts);
          if (
            opts.allowConversion === undefined &&
            opts.adminFrameOrigins === undefined &&
            Object.keys(seller).length === 0
          )
            fail(
              'Give a setting to change: --allow-conversion, --admin-frame-origins, --seller-name, --address, --country, --tax-id, --support-email or --logo.',
              !!opts.json,
            );
          const origins = frameOriginsOf(opts.adminFrameOrigins);
          const updated = await services.catalog.updateVendorSettings(opts.vendor, {
            allowConversion: opts.allowConversion,
            adminFrameOrigins: origins,
            ...seller,
          });
          print(!!opts.json, updated, () =>
            [
              `Vendor ${updated.id}: conversion from USD is ${updated.allowConversion ? 'allowed' : 'off; customers pay in listed currencies or USD'}.`,
              `The admin tool may be framed by: ${updated.adminFrameOrigins.length ? updated.adminFrameOrigins.join(', ') : 'no other site'}.`,
              `Invoices show the seller as: ${[updated.sellerName ?? updated.name, ...(updated.address ?? []), updated.country, updated.taxId && `VAT ID ${updated.taxId}`].filter(Boolean).join(', ')}.`,
              `Support e-mail on invoices: ${updated.supportEmail ?? 'none'}; logo: ${updated.logo ? 'set' : 'none'}.`,
            ].join('\n'),
          );
        }),
      ),
    );
}

interface SettingsOptions {
  vendor: string;
  allowConversion?: boolean;
  adminFrameOrigins?: string;
  sellerName?: string;
  address?: string;
  country?: string;
  taxId?: string;
  supportEmail?: string;
  logo?: string;
  json?: boolean;
}

/** --admin-frame-origins: not given leaves the setting as it is; `none` clears it; else a list split on commas or spaces. */
function frameOriginsOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value === 'none' ? [] : value.split(/[\s,]+/).filter(Boolean);
}

/** The seller-detail flags given, for updateVendorSettings (which checks them); a logo file is read here. */
function sellerOptions(opts: SettingsOptions): SellerDetailsInput {
  const out: SellerDetailsInput = {};
  if (opts.sellerName !== undefined) out.sellerName = opts.sellerName;
  if (opts.address !== undefined) out.address = opts.address.split(/\s*\|\s*|\r?\n/);
  if (opts.country !== undefined) out.country = opts.country;
  if (opts.taxId !== undefined) out.taxId = opts.taxId;
  if (opts.supportEmail !== undefined) out.supportEmail = opts.supportEmail;
  if (opts.logo !== undefined) {
    if (opts.logo === 'none' || opts.logo === '') out.logo = null;
    else {
      const size = statSync(opts.logo, { throwIfNoEntry: false })?.size;
      if (size === undefined) throw invalidInput(`There is no file ${opts.logo}.`);
      if (size > LOGO_MAX_BYTES)
        throw invalidInput(`The logo can be at most 100 KB; ${opts.logo} is ${Math.ceil(size / 1024)} KB.`);
      out.logo = readFileSync(opts.logo);
    }
  }
  return out;
}

/** `opentill vendor invite` and `opentill vendor enable-production`: who gets into the panel, and who reaches production (docs/decisions.md §19). */
function registerAccessCommands(vendor: Command) {
  vendor
    .command('invite')
    .description(
      "print a one-time link: with --vendor, to set that vendor's panel password (valid a day; its login is the vendor's e-mail); " +
        'with --email, to sign up as a new vendor that signs in with that e-mail (valid a week; needs PANEL_SIGNUP=invite or open)',
    )
    .option('--vendor <id>', 'an existing vendor (TC-VE_...): set its panel password')
    .option('--email <address>', 'invite someone to sign up: the new account signs in with this e-mail')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor?: string; email?: string; json?: boolean }) =>
      run(!!opts.json, () => {
        if ((opts.vendor === undefined) === (opts.email === undefined))
          fail(
            'Give either --vendor <id> (a panel password for that vendor) or --email <address> (an invitation to sign up).',
            !!opts.json,
          );
        return withServices(async (services) => {
          if (opts.vendor !== undefined) {
            const { token, expiresAt } = await services.panelInvites.issue(opts.vendor);
            const url = `${services.urls.base('production')}/panel/invite/${token}`;
            return print(
              !!opts.json,
              { url, expiresAt },
              () => `Open this link to set the panel password (it works once, until ${expiresAt}):\n${url}`,
            );
          }
          if (services.panel.signUpMode === 'closed')
            fail(
              'PANEL_SIGNUP is closed here, so nobody can sign up, invited or not: set PANEL_SIGNUP=invite (for opentill serve too), or make the vendor yourself with opentill vendor create and give it a panel login with opentill vendor invite --vendor <id>.',
              !!opts.json,
            );
          const { token, email, expiresAt } = await services.panelInvites.issueSignUp(opts.email ?? '');
          const url = `${services.urls.base('production')}/panel/signup/${token}`;
          print(!!opts.json, { url, email, expiresAt }, () =>
            [
              `Send this link to ${email}. It creates one vendor account that signs in with that e-mail and can take real payments (it works once, until ${expiresAt}):`,
              url,
            ].join('\n'),
          );
        });
      }),
    );

  vendor
    .command('enable-production')
    .description(
      'let a vendor that signed up in an open panel (PANEL_SIGNUP=open) use production: its API credentials, panel pages, checkout and admin tool',
    )
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { vendor: enabled, changed } = await services.catalog.enableProduction(opts.vendor);
          print(!!opts.json, { id: enabled.id, productionEnabled: true, changed }, () =>
            changed
              ? `Vendor ${enabled.name} (${enabled.id}) can now use production. It creates its production credential in the panel (Developers, Production), or: opentill credential create --vendor ${enabled.id} --environment production`
              : `Vendor ${enabled.name} (${enabled.id}) could use production already; nothing changed.`,
          );
        }),
      ),
    );
}
