import type { Command } from 'commander';
import type { Environment } from '../../domain/model.ts';
import type { WebhookEndpoint } from '../../domain/ports.ts';
import { environment } from '../option-parsers.ts';
import { io, print, run } from '../output.ts';
import { requireVendor, withServices } from '../with-services.ts';

/**
 * `opentill webhook add|list|remove|test`: a vendor's webhook endpoints (docs/decisions.md §27). The
 * signing secret (`whsec_...`) is printed once, by `add`.
 */
export function registerWebhookCommands(program: Command) {
  const webhook = program
    .command('webhook')
    .description(
      "a vendor's signed webhook endpoints: add (secret shown once), list, remove, enable again, send a test event",
    );
  registerAdd(webhook);
  registerList(webhook);
  registerRemove(webhook);
  registerEnable(webhook);
  registerTest(webhook);
}

interface ScopeOptions {
  vendor: string;
  env: Environment;
  json?: boolean;
}

const scoped = (command: Command) =>
  command
    .requiredOption('--vendor <id>', 'vendor id (TC-VE_...)')
    .requiredOption('--env <env>', 'sandbox or production', environment)
    .option('--json', 'print JSON');

const line = (e: WebhookEndpoint) =>
  `${e.id}  ${e.scope.environment.padEnd(10)}  ${e.url}  ${e.enabled ? 'enabled' : `disabled ${e.disabledAt ?? ''}: ${e.disabledReason ?? ''}`}`;

function registerAdd(webhook: Command) {
  scoped(webhook.command('add'))
    .description(
      'add an endpoint; production ones must be https and public (the sandbox may use localhost); prints its signing secret once',
    )
    .requiredOption('--url <url>', 'where events are POSTed')
    .action(async (opts: ScopeOptions & { url: string }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const { endpoint, secret } = await services.webhooks.add(
            { vendorId: opts.vendor, environment: opts.env },
            opts.url,
          );
          print(!!opts.json, { endpoint, secret }, () =>
            [
              `New ${endpoint.scope.environment} webhook endpoint ${endpoint.id} for ${endpoint.url}`,
              `Signing secret (shown only now, keep it secret; verify with the standardwebhooks library):`,
              `  ${secret}`,
            ].join('\n'),
          );
        }),
      ),
    );
}

function registerList(webhook: Command) {
  scoped(webhook.command('list'))
    .description("list a vendor's endpoints in one environment (never their secrets)")
    .action(async (opts: ScopeOptions) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const all = await services.webhooks.list({ vendorId: opts.vendor, environment: opts.env });
          print(!!opts.json, all, () => (all.length === 0 ? 'No webhook endpoints.' : all.map(line).join('\n')));
        }),
      ),
    );
}

function registerRemove(webhook: Command) {
  scoped(webhook.command('remove'))
    .description('remove an endpoint: nothing more is sent to it, and what waited for it is given up')
    .requiredOption('--id <id>', 'endpoint id (we_...)')
    .action(async (opts: ScopeOptions & { id: string }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          await services.webhooks.remove({ vendorId: opts.vendor, environment: opts.env }, opts.id);
          print(!!opts.json, { id: opts.id, removed: true }, () => `Removed webhook endpoint ${opts.id}.`);
        }),
      ),
    );
}

function registerEnable(webhook: Command) {
  scoped(webhook.command('enable'))
    .description('enable an endpoint disabled after 3 days of failures: the events that waited for it are sent')
    .requiredOption('--id <id>', 'endpoint id (we_...)')
    .action(async (opts: ScopeOptions & { id: string }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          await services.webhooks.enable({ vendorId: opts.vendor, environment: opts.env }, opts.id);
          print(!!opts.json, { id: opts.id, enabled: true }, () => `Enabled webhook endpoint ${opts.id} again.`);
        }),
      ),
    );
}

function registerTest(webhook: Command) {
  scoped(webhook.command('test'))
    .description('send a signed webhook.test event to an endpoint now and say what it answered')
    .requiredOption('--id <id>', 'endpoint id (we_...)')
    .action(async (opts: ScopeOptions & { id: string }) =>
      run(!!opts.json, () =>
        withServices(async (services) => {
          await requireVendor(services, opts.vendor, !!opts.json);
          const event = await services.webhooks.test({ vendorId: opts.vendor, environment: opts.env }, opts.id);
          const ok = event.status === 'DELIVERED';
          const result = { id: event.id, delivered: ok, status: event.lastStatus, error: event.lastError };
          print(!!opts.json, result, () =>
            ok
              ? `Delivered test event ${event.id}: the endpoint answered HTTP ${event.lastStatus}.`
              : `Test event ${event.id} not delivered: ${event.lastError}.`,
          );
          if (!ok) io().exitCode = 1;
        }),
      ),
    );
}
