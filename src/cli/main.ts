import { Command } from 'commander';
import { registerAttemptCommands } from './commands/attempts.ts';
import { registerBackupCommands } from './commands/backup.ts';
import { registerCouponCommands } from './commands/coupon.ts';
import { registerCredentialCommands } from './commands/credential.ts';
import { registerDoctorCommand } from './commands/doctor.ts';
import { registerProductCommands } from './commands/product.ts';
import { registerRatesCommands } from './commands/rates.ts';
import { registerSandboxCommands } from './commands/sandbox.ts';
import { registerServerCommands } from './commands/server.ts';
import { registerStripeCommands } from './commands/stripe.ts';
import { registerTaxCommands } from './commands/tax.ts';
import { registerVendorCommands } from './commands/vendor.ts';
import { registerWorkerCommand } from './commands/worker.ts';

/** `opentill`: serve the API, migrate, and manage vendors, products and sandbox purchases. */
const program = new Command('opentill')
  .description('opentill: self-hostable payments and subscriptions')
  .showHelpAfterError();

// Registration order is the order `opentill --help` lists the commands in.
registerServerCommands(program);
registerVendorCommands(program);
registerCredentialCommands(program);
registerProductCommands(program);
registerCouponCommands(program);
registerSandboxCommands(program);
registerWorkerCommand(program);
registerAttemptCommands(program);
registerRatesCommands(program);
registerTaxCommands(program);
registerStripeCommands(program);
registerBackupCommands(program);
registerDoctorCommand(program);

await program.parseAsync(process.argv);
