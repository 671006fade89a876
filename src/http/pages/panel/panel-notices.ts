import type { VendorStatus } from '../../../domain/catalog/index.ts';
import type { Environment, VendorSuspension } from '../../../domain/model.ts';
import type { SellerOf } from '../../../domain/production-access.ts';
import type { Services } from '../../../services.ts';
import { html, type Html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';

/** What the panel asks of the running server: which processor takes an environment's payments, and its keys. */
export type PaymentsSetup = Pick<Services, 'payments' | 'config'>;

/**
 * What keeps the vendor's checkout closed, on every page of the environment (docs/decisions.md §24, §30):
 * payments off (no processor configured) or the processor's events refused (no webhook signing secret),
 * a suspension (both environments), and in production a seller identity not complete, with what is
 * missing and where to set it (or, when the operator sells for every vendor, whom to ask).
 */
export function checkoutWarnings(
  status: VendorStatus,
  environment: Environment,
  server: PaymentsSetup,
): Html | undefined {
  // A vendor not reaching production at all sees the page that says so instead.
  const reaches = environment === 'sandbox' || status.productionEnabled;
  const payments = reaches ? paymentsWarning(server, environment) : undefined;
  const identity = environment === 'production' && status.productionEnabled && status.seller.missing.length > 0;
  if (!payments && !status.suspension && !identity) return undefined;
  return html`${payments ?? ''}${status.suspension ? suspended(status.suspension) : ''}${identity ? identityMissing(status.seller) : ''}`;
}

/**
 * Payments off until the operator configures a processor for the environment (production only: the
 * sandbox always has one); with Stripe's keys but no webhook signing secret, payments are taken but
 * Stripe's events (refunds made and disputes opened at Stripe) are refused, which the vendor must know.
 */
function paymentsWarning({ payments, config }: PaymentsSetup, environment: Environment): Html | undefined {
  const { processor } = payments.describe(environment);
  const prefix = environment === 'sandbox' ? 'STRIPE_SANDBOX_' : 'STRIPE_';
  if (processor === null)
    return html`<div class="alert warn" data-testid="payments-off"><p><strong>Payments are off: no payment processor is configured for ${environment}.</strong> Buyers cannot pay and no renewal or vaulted charge is taken; everything else here works.</p>
<p>The operator of this server turns payments on with Stripe's keys (${prefix}SECRET_KEY, ${prefix}PUBLISHABLE_KEY) and then <code>opentill stripe setup</code>, which prints ${prefix}WEBHOOK_SECRET (README, "Taking real payments").</p></div>`;
  const keys = config.stripe[environment];
  if (processor !== 'STRIPE' || !keys || keys.webhookSecret) return undefined;
  const setup = `opentill stripe setup${environment === 'sandbox' ? ' --sandbox' : ''}`;
  return html`<div class="alert warn" data-testid="payments-events-off"><p><strong>Stripe's events are refused: ${prefix}WEBHOOK_SECRET is not set.</strong> Payments go through, but a refund made or a dispute opened in Stripe's dashboard does not reach your transactions and the feed.</p>
<p>The operator of this server runs <code>${setup}</code> and sets the signing secret it prints.</p></div>`;
}

function suspended(suspension: VendorSuspension): Html {
  const why = suspension.reason ? `: ${suspension.reason}` : '';
  const renewals = suspension.renewalsStopped
    ? 'Renewals of your subscriptions are paused too: none is charged or cancelled until the operator resumes your account.'
    : 'Renewals of your subscriptions go on.';
  return html`<div class="alert warn" data-testid="suspended"><p><strong>Your account is suspended by the operator of this server.</strong> Your checkout takes no new purchases, in production and in the sandbox${why}.</p>
<p>${renewals} Refunds, cancellations and everything you read here still work.</p></div>`;
}

function identityMissing({ seller, missing }: SellerOf): Html {
  const fix =
    seller === 'operator'
      ? html`The operator of this server sells for you and sets these; ask them.`
      : html`<a href="${panelHref('/panel/settings', 'production')}">Complete them in Settings</a>.`;
  return html`<div class="alert warn" data-testid="identity-missing"><p><strong>Your production checkout is closed:</strong> buyers cannot pay until the seller's legal name, address, country and tax ID are set, so that invoices name their seller and tax is right from the first sale.</p>
<p>Missing: ${missing.join(', ')}. ${fix}</p></div>`;
}
