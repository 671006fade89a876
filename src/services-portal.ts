import type { BillingService } from './domain/billing/index.ts';
import type { PurchaseService, TransactionService } from './domain/checkout/index.ts';
import type { VendorClock } from './domain/clock.ts';
import type { HostedLinks } from './domain/hosted-links.ts';
import type { Environment, SellerOfRecord } from './domain/model.ts';
import type { CustomerEmailService } from './domain/notifications/index.ts';
import type { PaymentGateway } from './domain/payments/index.ts';
import { customerPortalService } from './domain/portal/index.ts';
import type { Store } from './domain/ports.ts';
import { formatVatIdChecker } from './domain/tax/index.ts';
import { composePortalEmail } from './mail/portal-emails.ts';

/** The customer portal over the services it uses; its e-mails go out through the customer e-mails' SMTP, at once. */
export function portalServices(deps: {
  store: Store;
  clock: VendorClock;
  gateways: Record<Environment, PaymentGateway>;
  transactions: TransactionService;
  purchases: PurchaseService;
  billing: BillingService;
  links: HostedLinks;
  urls: { base(environment: Environment): string };
  emails: CustomerEmailService;
  secret: string;
  sellerOfRecord: SellerOfRecord;
}) {
  // The VAT ID checker is the checkout's (format only), so the portal accepts what the checkout accepts.
  return customerPortalService({ ...deps, mail: deps.emails, compose: composePortalEmail, vatIds: formatVatIdChecker });
}
