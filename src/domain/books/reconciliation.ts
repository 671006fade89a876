import { AppError, invalidInput, invalidState } from '../errors.ts';
import type { Environment } from '../model.ts';
import type { ActivityPeriod, PaymentGateway } from '../payments/index.ts';
import type { Store } from '../ports.ts';
import { isIsoDate } from '../validation.ts';
import { matchWithLedger, referencesToFind, inPeriod } from './reconciliation-match.ts';
import type { ReconciliationPeriod, ReconciliationReport } from './reconciliation-model.ts';

/**
 * Reconciliation with the processor (docs/decisions.md §25): the processor's balance movements of a
 * period and its payouts, matched with the ledger by the processor's id each entry keeps.
 *
 * The period is cut by the processor's time: an item belongs to the days it was made on (UTC). Its entry
 * is found wherever it was booked, so a booking that came late is no difference. The other way round, an
 * entry booked in the period must be among the processor's items of the period or of a margin around it:
 * a booking follows its item by as long as the processor's events may take (retried for up to three days),
 * and a refund is dated when opentill asks for it, a little before the processor makes it.
 */
const DAY_MS = 86_400_000;
const PROCESSOR_LEAD_MS = 3 * DAY_MS;
const PROCESSOR_TRAIL_MS = DAY_MS;
/** A longer time is reconciled a year at a time: the processor's records are read in full, page by page. */
const MAX_DAYS = 366;

export interface ReconciliationDeps {
  store: Pick<Store, 'entries'>;
  gateways: Record<Environment, Pick<PaymentGateway, 'provider' | 'books'>>;
}

export interface ReconciliationRequest {
  /** The processor, as the gateway and the ledger name it (`STRIPE`). */
  provider: string;
  environment: Environment;
  /** The first and the last day, YYYY-MM-DD (UTC), both included. */
  from: string;
  to: string;
}

/** The days from `from` to `to`, both included, as the instants they span. */
export function reconciliationPeriod(from: string, to: string): ReconciliationPeriod {
  if (!isIsoDate(from)) throw invalidInput(`"${from}" is not a date: give the first day as YYYY-MM-DD.`);
  if (!isIsoDate(to)) throw invalidInput(`"${to}" is not a date: give the last day as YYYY-MM-DD.`);
  const startsAt = Date.parse(`${from}T00:00:00.000Z`);
  const endsAt = Date.parse(`${to}T00:00:00.000Z`) + DAY_MS;
  if (endsAt <= startsAt) throw invalidInput(`The period ends (${to}) before it starts (${from}).`);
  if (endsAt - startsAt > MAX_DAYS * DAY_MS)
    throw invalidInput(`A period of at most ${MAX_DAYS} days is reconciled at once; ${from} to ${to} is longer.`);
  return { from, to, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(endsAt).toISOString() };
}

/** The processor's records, or an outage the operator can read: what the processor answered. */
async function fromProcessor<T>(provider: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      `The processor's records (${provider}) could not be read: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

async function reconcile(deps: ReconciliationDeps, request: ReconciliationRequest): Promise<ReconciliationReport> {
  const period = reconciliationPeriod(request.from, request.to);
  const { provider, environment } = request;
  const books = deps.gateways[environment].provider === provider ? deps.gateways[environment].books : undefined;
  if (!books)
    throw invalidState(`${environment} takes no payments through ${provider}: there is nothing to reconcile.`);
  const window: ActivityPeriod = {
    from: new Date(Date.parse(period.startsAt) - PROCESSOR_LEAD_MS),
    to: new Date(Date.parse(period.endsAt) + PROCESSOR_TRAIL_MS),
  };
  const filter = { environment, provider };
  const [items, payouts, ledger] = await Promise.all([
    fromProcessor(provider, () => books.items(window)),
    fromProcessor(provider, () => books.payouts({ from: new Date(period.startsAt), to: new Date(period.endsAt) })),
    deps.store.entries.referencedIn({ ...filter, from: period.startsAt, to: period.endsAt }),
  ]);
  const ofPeriod = items.filter((i) => inPeriod(i.createdAt, period));
  const wanted = referencesToFind(ofPeriod, new Set(ledger.map((e) => e.reference)));
  const elsewhere = wanted.length > 0 ? await deps.store.entries.withReferences(filter, wanted) : [];
  return { provider, environment, period, ...matchWithLedger({ period, items, ledger, elsewhere, payouts }) };
}

/** Reconciliation of an environment's ledger with its processor. */
export function reconciliationService(deps: ReconciliationDeps) {
  return {
    /** The report of the days from `from` to `to`; `differences` 0 when the books agree. */
    reconcile: (request: ReconciliationRequest) => reconcile(deps, request),
  };
}

export type ReconciliationService = ReturnType<typeof reconciliationService>;
