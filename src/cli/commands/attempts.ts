import type { Command } from 'commander';
import { formatMinor } from '../../domain/money/index.ts';
import { print, run } from '../output.ts';
import { withServices } from '../with-services.ts';

/** `opentill attempts list`: money movements whose outcome is not settled yet (docs/decisions.md §10a). */
export function registerAttemptCommands(program: Command) {
  const attempts = program
    .command('attempts')
    .description('charge and refund attempts the payment provider has not settled yet');

  attempts
    .command('list')
    .description('list open attempts (PENDING or UNKNOWN), oldest first; the worker reconciles them with the provider')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const open = await services.reconciler.listOpen();
          print(!!opts.json, open, () =>
            open.length === 0
              ? 'No open charge attempts.'
              : open
                  .map(
                    (a) =>
                      `${a.createdAt}  ${a.kind.padEnd(8)}  ${a.status.padEnd(7)}  ${formatMinor(a.amountMinor, a.currency)} ${a.currency}  ${a.scope.vendorId} ${a.scope.environment}  ${a.transactionId ?? '-'}`,
                  )
                  .join('\n'),
          );
        }),
      ),
    );
}
