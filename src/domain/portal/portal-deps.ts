import type { BillingService } from '../billing/index.ts';
import type { PurchaseService, TransactionService } from '../checkout/index.ts';
import type { VendorClock } from '../clock.ts';
import type { HostedLinks } from '../hosted-links.ts';
import type { Environment, SellerOfRecord, Vendor } from '../model.ts';
import type { VatIdChecker } from '../tax/index.ts';
import type { ComposedEmail, SendResult } from '../notifications/index.ts';
import type { PaymentGateway } from '../payments/index.ts';
import type { Store } from '../ports.ts';

/** What the portal's two e-mails say (docs/decisions.md §34): the words are src/mail's, in the buyer's language. */
export interface PortalLetter {
  kind: 'SIGN_IN' | 'MANAGE_LINK';
  /** The buyer's language: the page's where they asked, or the transaction's; null is English. */
  locale: string | null;
  environment: Environment;
  vendor: { name: string; supportEmail: string };
  url: string;
  /** A sandbox e-mail sent to the vendor instead: the customer it was meant for. */
  meantFor?: string | undefined;
}

/** Sends a portal e-mail at once (the customer e-mail service's `sendNow`). */
export interface PortalMail {
  /** False without SMTP: no sign-in by e-mail, no management link sent. */
  readonly enabled: boolean;
  sendNow(
    vendor: Vendor,
    customerEmail: string,
    compose: (meantFor: string | undefined) => ComposedEmail,
    environment: Environment,
  ): Promise<SendResult | { status: 'OFF' }>;
}

/**
 * What a customer can see and do on the management page of one vendor: their transactions with
 * their invoices, licence keys and saved cards; cancel a subscription (whoCanceled CUSTOMER);
 * replace the card of a subscription or vaulted method (in opentill's card form, or in the
 * processor's element through a card setup session); confirm a renewal their bank held for
 * authentication (3-D Secure); sign in by e-mail. Only the customer's own transactions: anything
 * else is "not found".
 */
export interface PortalDeps {
  store: Store;
  clock: VendorClock;
  gateways: Record<Environment, PaymentGateway>;
  transactions: Pick<TransactionService, 'cancel'>;
  /** Prices the plans a customer may switch to, and switches through the purchase's migration. */
  purchases: Pick<PurchaseService, 'quote' | 'switchPlan' | 'changeSeats'>;
  billing: Pick<BillingService, 'bookAuthenticated'>;
  /** The server secret: signs the card setup sessions the page hands to the browser. */
  secret: string;
  links: HostedLinks;
  urls: { base(environment: Environment): string };
  mail: PortalMail;
  /** Checks a VAT ID the customer types (the checkout's checker). */
  vatIds: VatIdChecker;
  /** Who sells: whose country decides the reverse charge. */
  sellerOfRecord: SellerOfRecord;
  compose(letter: PortalLetter): ComposedEmail;
}
