import type { Command } from 'commander';
import type { Vendor } from '../../domain/model.ts';
import { fail, print, run } from '../output.ts';
import { withServices } from '../with-services.ts';

/** How a vendor's suspension reads in the CLI's answers and `vendor list`. */
export function suspensionText(vendor: Pick<Vendor, 'suspension'>): string {
  const s = vendor.suspension;
  if (!s) return 'active';
  return `suspended since ${s.since}${s.renewalsStopped ? ', renewals stopped' : ''}${s.reason ? ` (${s.reason})` : ''}`;
}

const suspensionJson = (vendor: Vendor, changed: boolean) => ({
  id: vendor.id,
  suspended: !!vendor.suspension,
  suspendedAt: vendor.suspension?.since ?? null,
  renewalsStopped: vendor.suspension?.renewalsStopped ?? false,
  reason: vendor.suspension?.reason ?? null,
  changed,
});

interface SuspendOptions {
  vendor: string;
  stopRenewals?: boolean;
  continueRenewals?: boolean;
  reason?: string;
  json?: boolean;
}

/** `opentill vendor suspend` and `opentill vendor resume` (docs/decisions.md §24); each safe to run again. */
export function registerSuspensionCommands(vendor: Command) {
  vendor
    .command('suspend')
    .description(
      "suspend a vendor: its checkout refuses new purchases (and its API new charges of stored cards) in both environments; reads, refunds and cancellations go on, and so do its customers' renewals unless --stop-renewals",
    )
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--stop-renewals', 'charge no renewal of its subscriptions until it is resumed (none is cancelled either)')
    .option('--continue-renewals', 'let the renewals of a vendor suspended with --stop-renewals go on again')
    .option('--reason <text>', 'why, for your own records and the vendor\'s panel ("" clears it)')
    .option('--json', 'print JSON')
    .action(async (opts: SuspendOptions) =>
      run(!!opts.json, () => {
        if (opts.stopRenewals && opts.continueRenewals)
          fail('Give --stop-renewals or --continue-renewals, not both.', !!opts.json);
        // Neither flag leaves the renewals as they are (a new suspension lets them go on).
        let stopRenewals: boolean | undefined;
        if (opts.stopRenewals) stopRenewals = true;
        if (opts.continueRenewals) stopRenewals = false;
        return withServices(async (services) => {
          const { vendor: v, changed } = await services.catalog.suspendVendor(opts.vendor, {
            stopRenewals,
            reason: opts.reason,
          });
          print(!!opts.json, suspensionJson(v, changed), () =>
            [
              `Vendor ${v.name} (${v.id}) is ${suspensionText(v)}${changed ? '' : '; nothing changed'}.`,
              `Its checkout refuses new purchases; ${v.suspension?.renewalsStopped ? 'no renewal is charged until it is resumed' : 'its renewals go on (--stop-renewals stops them)'}.`,
              `Resume it with: opentill vendor resume --vendor ${v.id}`,
            ].join('\n'),
          );
        });
      }),
    );

  vendor
    .command('resume')
    .description(
      'resume a suspended vendor: its checkout takes purchases again; stopped renewals go on, each that fell due meanwhile charged once, for the current period',
    )
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { vendor: v, changed } = await services.catalog.resumeVendor(opts.vendor);
          print(!!opts.json, suspensionJson(v, changed), () =>
            changed
              ? `Vendor ${v.name} (${v.id}) is resumed: its checkout takes purchases and its renewals go on.`
              : `Vendor ${v.name} (${v.id}) was not suspended; nothing changed.`,
          );
        }),
      ),
    );
}
