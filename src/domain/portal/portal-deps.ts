import type { BillingService } from '../billing/index.ts';
import type { TransactionService } from '../checkout/index.ts';
import type { Clock } from '../clock.ts';
import type { Environment } from '../model.ts';
import type { PaymentGateway } from '../payments/index.ts';
import type { Store } from '../ports.ts';

/**
 * What a customer can see and do on the management page of one vendor: their transactions with
 * their invoices, licence keys and saved cards; cancel a subscription (whoCanceled CUSTOMER);
 * replace the card of a subscription or vaulted method (in opentill's card form, or in the
 * processor's element through a card setup session); confirm a renewal their bank held for
 * authentication (3-D Secure). Only the customer's own transactions: anything else is "not found".
 */
export interface PortalDeps {
  store: Store;
  clock: Clock;
  gateways: Record<Environment, PaymentGateway>;
  transactions: Pick<TransactionService, 'cancel'>;
  billing: Pick<BillingService, 'bookAuthenticated'>;
  /** The server secret: signs the card setup sessions the page hands to the browser. */
  secret: string;
}
