import type { Environment, Transaction } from '../../../domain/model.ts';
import { html, type Html } from '../layout.ts';
import { panelHref } from './panel-layout.ts';
import { transactionRows } from './transactions.ts';

type CustomerRow = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  createdAt: string;
  transactions: number;
};
type Card = { id: string; brand: string; last4: string; expMonth: number; expYear: number };

const nameOf = (c: { firstName: string | null; lastName: string | null }) =>
  [c.firstName, c.lastName].filter(Boolean).join(' ');

export function customersContent(view: {
  environment: Environment;
  q: string;
  customers: CustomerRow[];
  total: number;
  page: number;
  pageSize: number;
}): Html {
  const env = view.environment;
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  return html`<form method="get" action="/panel/customers" class="filters" role="search"><input type="hidden" name="env" value="${env}">
    <div><label for="q">E-mail (or part of it) or ID</label><input id="q" name="q" value="${view.q}"></div><div><button type="submit">Search</button></div></form>
  <p class="muted" data-testid="count">${view.total} customer${view.total === 1 ? '' : 's'}</p>
  ${
    view.customers.length
      ? html`<div class="scroll"><table class="grid" aria-label="Customers"><thead><tr><th>E-mail</th><th class="hide-phone">Name</th><th class="hide-phone">Since</th><th class="num">Transactions</th></tr></thead><tbody>
  ${view.customers.map(
    (c) =>
      html`<tr data-testid="customer"><td><a href="${panelHref(`/panel/customers/${c.id}`, env)}">${c.email}</a></td><td class="hide-phone">${nameOf(c)}</td><td class="hide-phone">${c.createdAt.slice(0, 10)}</td><td class="num">${String(c.transactions)}</td></tr>`,
  )}</tbody></table></div>`
      : html`<p class="muted">No customers yet.</p>`
  }
  ${
    pages > 1
      ? html`<p class="pager">${view.page > 1 ? html`<a href="${panelHref('/panel/customers', env, { q: view.q, page: view.page - 1 })}" rel="prev">Previous</a>` : ''}<span class="muted">Page ${view.page} of ${pages}</span>${
          view.page < pages
            ? html`<a href="${panelHref('/panel/customers', env, { q: view.q, page: view.page + 1 })}" rel="next">Next</a>`
            : ''
        }</p>`
      : ''
  }`;
}

export function customerDetail(view: {
  environment: Environment;
  customer: {
    id: string;
    email: string;
    firstName: string | null;
    lastName: string | null;
    createdAt: string;
    cards: Card[];
    transactions: Transaction[];
  };
  locale: string;
}): Html {
  const c = view.customer;
  return html`<p><a href="${panelHref('/panel/customers', view.environment)}">← All customers</a></p>
  <dl class="facts"><dt>E-mail</dt><dd>${c.email}</dd>${nameOf(c) ? html`<dt>Name</dt><dd>${nameOf(c)}</dd>` : ''}<dt>ID</dt><dd><code>${c.id}</code></dd><dt>Since</dt><dd>${c.createdAt.slice(0, 10)}</dd></dl>
  <h2>Cards</h2>
  ${
    c.cards.length
      ? html`<ul>${c.cards.map((card) => html`<li data-testid="card">${card.brand.charAt(0).toUpperCase() + card.brand.slice(1)} ending in ${card.last4}, expires ${String(card.expMonth).padStart(2, '0')}/${String(card.expYear)}</li>`)}</ul>`
      : html`<p class="muted">No saved cards.</p>`
  }
  <h2>Transactions</h2>
  ${c.transactions.length ? transactionRows(c.transactions, view.environment, view.locale) : html`<p class="muted">None.</p>`}`;
}
