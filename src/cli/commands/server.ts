import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { fail, io, print, run } from '../output.ts';
import { withServices } from '../with-services.ts';

/** `opentill serve` and `opentill migrate`: run the service, or only bring its schema up to date. */
export function registerServerCommands(program: Command) {
  program
    .command('serve')
    .description('start the HTTP server (migrates first; seeds a demo vendor on the very first start)')
    .option(
      '--processes <n>',
      'serve from n processes on one port, restarting any that dies (PostgreSQL only)',
      processCount,
      1,
    )
    .action(async (opts: { processes: number }) => {
      try {
        // Loaded only here: the HTTP stack is most of a cold start, and no other command needs it.
        const { serve } = await import('../../server-cluster.ts');
        await serve(loadConfig(io().env), opts.processes);
      } catch (err) {
        fail((err as Error).message);
      }
    });

  program
    .command('migrate')
    .description('bring the database schema up to date')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services, applied) => {
          // withServices has just migrated: report what that run applied.
          const { dialect } = services.maintenance;
          print(!!opts.json, { applied, dialect }, () =>
            [
              ...(applied.length
                ? [`Applied ${applied.length} migration(s): ${applied.join(', ')}`]
                : ['No migration to apply.']),
              `Schema is up to date on ${dialect}.`,
            ].join('\n'),
          );
        }),
      ),
    );
}

function processCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64) throw new InvalidArgumentError('a whole number from 1 to 64.');
  return n;
}
