import { formatForBuyer } from '../../../domain/money/index.ts';
import type { Environment, LedgerEntry, PaymentMethod, Transaction, WhoCanceled } from '../../../domain/model.ts';
import { isPayment, refundableNow } from '../../../domain/payments/index.ts';
import { formatInvoiceNumber, type TransactionDetails } from '../../../domain/reports/index.ts';
import { paymentMethodLabel, translator } from '../../../i18n/index.ts';
import { html, type Html } from '../layout.ts';
import { csrfField, panelHref } from './panel-layout.ts';
import { placeName } from './place-names.ts';
import { cancellable, kindText, statusBadge } from './transactions.ts';
import { entryLabel } from './words.ts';

/** How the vendor gets the customer their management page: we e-mail it, or the vendor copies it (e-mails off). */
export type ManageLink = { send: true; toVendor: boolean } | { send: false; url: string };

/** The panel is English (docs/decisions.md §32); the card is put into words where every surface does it. */
const english = translator('en');

/** Who cancelled, as the vendor reads it: anyone but the vendor, the customer or a failed charge is the provider. */
function cancelledBy(who: WhoCanceled): string {
  if (who === 'VENDOR') return 'You';
  if (who === 'CUSTOMER') return 'The customer';
  return who === 'NEXT_CHARGE_FAILED' ? 'A failed charge' : 'The provider';
}

const paidWith = (pm: PaymentMethod) =>
  `${paymentMethodLabel(english, pm)}, expires ${String(pm.expMonth).padStart(2, '0')}/${String(pm.expYear)}`;

/** The street lines as typed and the postal code, one per line; undefined when the buyer gave neither. */
function addressLines(t: Transaction): Html | undefined {
  const lines = [...(t.buyerAddress ?? '').split('\n'), t.postalCode ?? ''].map((l) => l.trim()).filter(Boolean);
  return lines.length ? html`${lines.map((line, i) => html`${i ? html`<br>` : ''}${line}`)}` : undefined;
}

/** A payment's invoice or a reversal's credit note, as a link to its PDF (none for a chargeback). */
function documentLink(e: LedgerEntry, environment: Environment, base: string): Html | string {
  if (e.invoiceNumber == null) return '';
  const label = `${isPayment(e) ? 'Invoice' : 'Credit note'} ${formatInvoiceNumber(e.invoiceNumber, environment)}`;
  return html`<br><a href="${base}/invoice/${encodeURIComponent(e.hashId)}" data-testid="document">${label}</a>`;
}

/** Who the buyer is and where: name, company, VAT ID, address, place; each only when given. */
function buyerFacts(t: Transaction, fact: (label: string, value: unknown, id?: string) => Html): Html {
  const address = addressLines(t);
  return html`${t.buyerName ? fact('Name', t.buyerName, 'buyer-name') : ''}
    ${t.businessName ? fact('Company', t.businessName, 'company') : ''}
    ${t.buyerVatId ? fact('VAT ID', t.buyerVatId, 'vat-id') : ''}
    ${address ? fact('Address', address, 'address') : ''}
    ${fact('Country', placeName(t.country, t.region), 'country')}`;
}

function manageLinkBlock(t: Transaction, environment: Environment, csrf: string, link: ManageLink): Html {
  if (link.send)
    return html`<p class="muted">E-mail ${t.email} a link to the page where they manage their purchases: invoices, billing details, card, cancellation.${
      link.toVendor ? ' Sandbox e-mails go to your own address instead, to see what the customer would get.' : ''
    }</p>
    <form method="post" action="${panelHref(`/panel/transactions/${t.id}/manage-link`, environment)}">${csrfField(csrf)}<button type="submit" class="outline" data-testid="send-manage-link">Send management link</button></form>`;
  return html`<p class="muted">Customer e-mails are off, so give ${t.email} this link yourself: it opens the page where they manage their purchases, for one hour.</p>
    <p class="manage-link"><code id="manage-link" data-testid="manage-link">${link.url}</code></p>
    <button type="button" class="outline" data-copy="manage-link" data-testid="copy-manage-link">Copy link</button>`;
}

/** One transaction: who bought what, where and with which card, its licence key, its ledger with documents, and what the vendor can do. */
export function transactionDetail(view: {
  environment: Environment;
  details: TransactionDetails;
  csrf: string;
  locale: string;
  /** `{base_url}` of the environment, where its invoices are. */
  documentsBase: string;
  manageLink: ManageLink;
  /** The purchase's licence key with its activations, revoke and reissue (licence-section.ts). */
  licenceSection?: Html | undefined;
  /** The subscription's pause, and pause or resume (pause-panel.ts). */
  pauseSection?: Html | undefined;
  /** A per-seat subscription's seats, and the form to change them (seats-panel.ts). */
  seatsSection?: Html | undefined;
}): Html {
  const { transaction: t, entries, paymentMethod, licence } = view.details;
  const env = view.environment;
  const money = (minor: number, currency = t.currency) => formatForBuyer(minor, currency, view.locale);
  const left = refundableNow(t, entries);
  const fact = (label: string, value: unknown, id?: string) =>
    html`<dt>${label}</dt><dd${id ? html` data-testid="${id}"` : ''}>${value}</dd>`;
  return html`<p><a href="${panelHref('/panel/transactions', env)}">← All transactions</a></p>
  <dl class="facts">
    ${fact('ID', html`<code id="tx-id">${t.id}</code> <button type="button" class="link" data-copy="tx-id">Copy</button>`)}
    ${fact('Status', statusBadge(t))}
    ${fact('Customer', html`<a href="${panelHref(`/panel/customers/${t.customerId}`, env)}">${t.email}</a>${t.assignedEmail ? ` (assigned to ${t.assignedEmail})` : ''}`)}
    ${buyerFacts(t, fact)}
    ${fact('Product', t.productName)}
    ${fact('Type', kindText(t))}
    ${fact('Amount', `${money(t.netMinor + t.taxMinor)} (net ${money(t.netMinor)}, ${t.taxName || 'tax'} ${money(t.taxMinor)})`)}
    ${paymentMethod ? fact('Paid with', paidWith(paymentMethod), 'paid-with') : ''}
    ${licence ? fact('Licence key', html`<code id="licence" data-testid="licence">${licence}</code> <button type="button" class="link" data-copy="licence" data-testid="copy-licence">Copy</button>`) : ''}
    ${fact('Created', t.createdAt.replace('T', ' ').slice(0, 16))}
    ${t.nextCharge ? fact('Next charge', t.nextCharge.slice(0, 10)) : ''}
    ${t.whoCanceled ? fact('Cancelled by', cancelledBy(t.whoCanceled), 'cancelled-by') : ''}
    ${t.cancelReason ? fact('Reason given', t.cancelReason, 'cancel-reason') : ''}
  </dl>
  ${view.licenceSection ?? ''}
  ${view.pauseSection ?? ''}
  ${view.seatsSection ?? ''}
  <h2>Ledger</h2>
  <div class="scroll"><table class="grid" aria-label="Ledger entries"><thead><tr><th>Date</th><th>Entry</th><th class="num">Total</th><th class="num hide-phone">Tax</th><th class="num">Net</th></tr></thead><tbody>
  ${entries.map(
    (
      e,
    ) => html`<tr data-testid="entry"><td class="when">${e.createdAt.slice(0, 10)}<span class="hide-phone"> ${e.createdAt.slice(11, 16)}</span></td><td>${entryLabel(e)}${e.description ? html`<br><span class="muted" data-testid="reason">${e.description}</span>` : ''}${documentLink(e, env, view.documentsBase)}</td><td class="num">${money(e.amountTotalMinor, e.currency)}</td>
    <td class="num hide-phone">${money(e.taxMinor, e.currency)}</td><td class="num">${money(e.netMinor, e.currency)}</td></tr>`,
  )}</tbody></table></div>
  ${entries.length ? '' : html`<p class="muted">No money has moved yet.</p>`}
  <div class="inline">
    ${left ? html`<a class="button" href="${panelHref(`/panel/transactions/${t.id}/refund`, env)}" data-testid="refund">Refund (up to ${money(left.remainingMinor, left.payment.currency)})…</a>` : ''}
    ${cancellable(t) ? html`<a class="button" href="${panelHref(`/panel/transactions/${t.id}/cancel`, env)}" data-testid="cancel">Cancel ${t.type === 'VAULTED' ? 'the saved card' : 'the subscription'}…</a>` : ''}
  </div>
  <h2>The customer's management page</h2>
  ${manageLinkBlock(t, env, view.csrf, view.manageLink)}`;
}
