import type { VendorStatus } from '../../../domain/catalog/index.ts';
import type { Environment, VendorSuspension } from '../../../domain/model.ts';
import type { SellerOf } from '../../../domain/production-access.ts';
import { html, type Html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';

/**
 * What keeps the vendor's checkout closed, on every page of the environment (docs/decisions.md §24): a
 * suspension (both environments), and in production a seller identity not complete, with what is
 * missing and where to set it (or, when the operator sells for every vendor, whom to ask).
 */
export function checkoutWarnings(status: VendorStatus, environment: Environment): Html | undefined {
  // A vendor not reaching production at all sees the page that says so instead.
  const identity = environment === 'production' && status.productionEnabled && status.seller.missing.length > 0;
  if (!status.suspension && !identity) return undefined;
  return html`${status.suspension ? suspended(status.suspension) : ''}${identity ? identityMissing(status.seller) : ''}`;
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
