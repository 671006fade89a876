import { AppError } from '../../../domain/errors.ts';
import { html } from '../layout.ts';
import type { OperatorRouting } from './operator-routing.ts';
import { reconciliationContent, reconciliationForm } from './reconciliation.ts';

/** Where a refusal is the page's answer: bad days (400), no Stripe here (409), Stripe not answering (503). */
const STATUS: Partial<Record<AppError['code'], number>> = {
  INVALID_INPUT: 400,
  INVALID_STATE: 409,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * The console's Reconciliation (docs/decisions.md §25, §26): Stripe's books of some days against the
 * ledger, as `opentill reconcile stripe` reports them. Read only: it changes nothing, so it is a GET.
 */
export function registerReconciliationPage({ services, view, page }: OperatorRouting) {
  view('/operator/reconciliation', async (session, environment, request, reply) => {
    const q = request.query as { from?: string; to?: string };
    const query = { from: q.from?.trim() ?? '', to: q.to?.trim() ?? '' };
    const form = reconciliationForm(query, environment);
    const context = { session, environment, request };
    if (!query.from && !query.to) return page(reply, context, 'reconciliation', 'Reconciliation', form);
    try {
      const report = await services.reconciliation.reconcile({ provider: 'STRIPE', environment, ...query });
      return page(reply, context, 'reconciliation', 'Reconciliation', html`${form}${reconciliationContent(report)}`);
    } catch (err) {
      const status = err instanceof AppError ? STATUS[err.code] : undefined;
      if (!status) throw err;
      return page(reply, context, 'reconciliation', 'Reconciliation', form, {
        status,
        error: (err as AppError).message,
      });
    }
  });
}
