import { Command, CommanderError } from 'commander';
import { registerAttemptCommands } from './commands/attempts.ts';
import { registerBackupCommands } from './commands/backup.ts';
import { registerCouponCommands } from './commands/coupon.ts';
import { registerCredentialCommands } from './commands/credential.ts';
import { registerDoctorCommand } from './commands/doctor.ts';
import { registerOperatorCommands } from './commands/operator.ts';
import { registerPayoutCommands } from './commands/payouts.ts';
import { registerProductCommands } from './commands/product.ts';
import { registerActivationLimitCommand } from './commands/product-activation-limit.ts';
import { registerSeatOptions } from './commands/product-seats.ts';
import { registerRatesCommands } from './commands/rates.ts';
import { registerReconcileCommands } from './commands/reconcile.ts';
import { registerSandboxCommands } from './commands/sandbox.ts';
import { registerServerCommands } from './commands/server.ts';
import { registerStripeCommands } from './commands/stripe.ts';
import { registerSubscriptionCommands } from './commands/subscription.ts';
import { registerTaxCommands } from './commands/tax.ts';
import { registerVendorCommands } from './commands/vendor.ts';
import { registerWebhookCommands } from './commands/webhook.ts';
import { registerWorkerCommand } from './commands/worker.ts';
import { CliExit, withIo, type CliIo } from './output.ts';

/** `opentill`: serve the API, migrate, and manage vendors, products and sandbox purchases. */
function program(io: CliIo): Command {
  const opentill = new Command('opentill')
    .description('opentill: self-hostable payments and subscriptions')
    .showHelpAfterError()
    // Commander's usage errors and help end the run through runCli, not by exiting the process itself.
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  // Registration order is the order `opentill --help` lists the commands in.
  registerServerCommands(opentill);
  registerVendorCommands(opentill);
  registerCredentialCommands(opentill);
  registerProductCommands(opentill);
  registerActivationLimitCommand(opentill);
  registerSeatOptions(opentill);
  registerCouponCommands(opentill);
  registerSubscriptionCommands(opentill);
  registerWebhookCommands(opentill);
  registerPayoutCommands(opentill);
  registerOperatorCommands(opentill);
  registerSandboxCommands(opentill);
  registerWorkerCommand(opentill);
  registerAttemptCommands(opentill);
  registerRatesCommands(opentill);
  registerTaxCommands(opentill);
  registerReconcileCommands(opentill);
  registerStripeCommands(opentill);
  registerBackupCommands(opentill);
  registerDoctorCommand(opentill);
  return opentill;
}

/**
 * Runs one command line (`args` without node and the script) with `io` as its settings and streams,
 * and resolves to its exit code.
 */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  return withIo(io, async () => {
    try {
      await program(io).parseAsync(args, { from: 'user' });
      return io.exitCode;
    } catch (err) {
      if (err instanceof CliExit) return err.code;
      if (err instanceof CommanderError) return err.exitCode;
      throw err;
    }
  });
}
