import type { Command } from 'commander';
import { print, run } from '../output.ts';
import { table } from '../table.ts';
import { withServices } from '../with-services.ts';

/**
 * `opentill operator create|password|list`: logins to the operator's console at {base_url}/operator
 * (docs/decisions.md §26). The password is generated and printed once; nothing else ever shows it.
 */
export function registerOperatorCommands(program: Command) {
  const operator = program
    .command('operator')
    .description("logins to the operator's console ({base_url}/operator): vendors, balances, payouts, tax returns");
  const signInHint = (base: string) => `Sign in at ${base}/operator (the password is shown this once).`;

  operator
    .command('create')
    .description('make a console login for an e-mail, with a generated password printed once')
    .requiredOption('--email <email>', 'the e-mail the operator signs in with')
    .option('--json', 'print JSON')
    .action((opts: { email: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { user, password } = await services.operators.create(opts.email);
          print(
            !!opts.json,
            { id: user.id, email: user.email, password },
            () =>
              `Operator ${user.email} (${user.id})\nPassword: ${password}\n${signInHint(services.urls.base('production'))}`,
          );
        }),
      ),
    );

  operator
    .command('password')
    .description('give a console login a new generated password (printed once); its open sessions end')
    .requiredOption('--email <email>', 'the e-mail the operator signs in with')
    .option('--json', 'print JSON')
    .action((opts: { email: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const { user, password } = await services.operators.resetPassword(opts.email);
          print(
            !!opts.json,
            { id: user.id, email: user.email, password },
            () => `Operator ${user.email}\nNew password: ${password}\n${signInHint(services.urls.base('production'))}`,
          );
        }),
      ),
    );

  operator
    .command('list')
    .description('the console logins')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const users = (await services.operators.list()).map(({ id, email, createdAt }) => ({ id, email, createdAt }));
          print(!!opts.json, users, () =>
            users.length === 0
              ? 'No operator logins yet: opentill operator create --email you@example.com'
              : table(
                  ['ID', 'E-MAIL', 'CREATED'],
                  users.map((u) => [u.id, u.email, u.createdAt.slice(0, 10)]),
                ),
          );
        }),
      ),
    );
}
