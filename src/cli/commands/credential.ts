import type { Command } from 'commander';
import type { Environment } from '../../domain/model.ts';
import { environment } from '../option-parsers.ts';
import { fail, print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

/**
 * `opentill credential create|list|revoke`: the only way to issue and revoke API credentials
 * (docs/decisions.md, "3. Authentication and credentials"). Rotating is create, switch, revoke.
 */
export function registerCredentialCommands(program: Command) {
  const credential = program
    .command('credential')
    .description('issue, list and revoke API credentials (rotate: create a new one, switch, revoke the old)');

  registerCreate(credential);
  registerList(credential);
  registerRevoke(credential);
}

/** `opentill credential create`: a new credential, its secret shown once. */
function registerCreate(credential: Command) {
  credential
    .command('create')
    .description(
      'issue a new API credential for one environment (shown once); production only for a vendor that may use it (see vendor enable-production)',
    )
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--environment <env>', 'sandbox or production', environment)
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; environment: Environment; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const issued = await services.credentials.issue({ vendorId: opts.vendor, environment: opts.environment });
          print(
            !!opts.json,
            {
              id: issued.id,
              environment: issued.environment,
              login: issued.login,
              authorization: issued.authorization,
            },
            () =>
              [
                `New ${issued.environment} credential ${issued.id} (shown only now, keep it secret):`,
                `  ${issued.authorization}`,
              ].join('\n'),
          );
        }),
      ),
    );
}

/** `opentill credential list`: a vendor's credentials, never their passwords. */
function registerList(credential: Command) {
  credential
    .command('list')
    .description("list a vendor's credentials (never their passwords)")
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const all = await services.credentials.list(opts.vendor);
          print(!!opts.json, all, () =>
            all.length === 0
              ? 'No credentials.'
              : all
                  .map(
                    (c) =>
                      `${c.id}  ${c.environment.padEnd(10)}  ${c.login}  created ${c.createdAt}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}`,
                  )
                  .join('\n'),
          );
        }),
      ),
    );
}

/** `opentill credential revoke`: a credential refused from now on. */
function registerRevoke(credential: Command) {
  credential
    .command('revoke')
    .description('revoke a credential at once: requests with it get 401')
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--credential <id-or-login>', 'the credential id (TC-CR_...) or its login')
    .option('--json', 'print JSON')
    .action(async (opts: { vendor: string; credential: string; json?: boolean }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          const found = (await services.credentials.list(opts.vendor)).find(
            (c) => c.id === opts.credential || c.login === opts.credential,
          );
          if (!found) fail(`Vendor ${opts.vendor} has no credential ${opts.credential}.`, !!opts.json);
          if (found.revokedAt) fail(`Credential ${found.id} was already revoked at ${found.revokedAt}.`, !!opts.json);
          await services.credentials.revoke({ vendorId: opts.vendor, environment: found.environment }, found.id);
          print(
            !!opts.json,
            { id: found.id, login: found.login, revoked: true },
            () => `Credential ${found.id} (${found.login}) is revoked.`,
          );
        }),
      ),
    );
}
