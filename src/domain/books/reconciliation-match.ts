import type { ProcessorItem, ProcessorPayout } from '../payments/index.ts';
import type { ReferencedEntry } from '../ports.ts';
import type {
  AmountDifference,
  PayoutLine,
  ProcessorLine,
  ReconciliationReport,
  UnbookedFees,
} from './reconciliation-model.ts';

/**
 * Matching the processor's items with the ledger's entries by the processor's id each keeps (pure; the
 * rules are docs/decisions.md §25). Each item takes one entry of its reference, so an entry booked twice
 * is found. Only the items made in the period are reported on; the others (read a little before and after
 * it) take their entries, so that an entry booked in the period for an item made just outside it is no
 * false difference.
 */
export interface MatchInput {
  period: { startsAt: string; endsAt: string };
  /** The processor's items of the period, and of a margin before and after it. */
  items: readonly ProcessorItem[];
  /** The ledger's entries booked in the period that keep a processor's id. */
  ledger: readonly ReferencedEntry[];
  /** Entries booked outside the period that keep the id of an item of the period (a booking after its end, say). */
  elsewhere: readonly ReferencedEntry[];
  payouts: readonly ProcessorPayout[];
}

type Findings = Omit<ReconciliationReport, 'provider' | 'environment' | 'period'>;

const lineOf = ({ id, kind, reference, label, createdAt, currency, amountMinor, feeMinor }: ProcessorItem) => ({
  id,
  kind,
  reference,
  label,
  createdAt,
  currency,
  amountMinor,
  feeMinor,
});

/** Is the instant (ISO, UTC) in [startsAt, endsAt)? ISO strings of one form order as their instants do. */
export const inPeriod = (at: string, period: MatchInput['period']) => at >= period.startsAt && at < period.endsAt;

/** The reference a failed refund's two halves are booked under: the refund's, and its failure's. */
const failedPartner = (item: ProcessorItem) =>
  item.kind === 'refund' ? `${item.reference}:failed` : item.reference.replace(/:failed$/, '');

/** The references to look for outside the period: each unmatched item's, and a failed refund's other half. */
export function referencesToFind(items: readonly ProcessorItem[], booked: ReadonlySet<string>): string[] {
  const wanted = new Set<string>();
  for (const item of items) {
    if (item.kind === 'payout' || item.kind === 'other' || booked.has(item.reference)) continue;
    wanted.add(item.reference);
    if (item.kind === 'refund' || item.kind === 'refund_failed') wanted.add(failedPartner(item));
  }
  return [...wanted];
}

/** The entries of each reference not taken yet by an item: each item takes the first. */
class EntriesByReference {
  private readonly byReference = new Map<string, ReferencedEntry[]>();
  private readonly taken = new Set<string>();
  constructor(entries: readonly ReferencedEntry[]) {
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.entryId)) continue;
      seen.add(entry.entryId);
      const same = this.byReference.get(entry.reference);
      if (same) same.push(entry);
      else this.byReference.set(entry.reference, [entry]);
    }
  }
  has(reference: string): boolean {
    return this.byReference.has(reference);
  }
  take(reference: string): ReferencedEntry | undefined {
    const entry = this.byReference.get(reference)?.find((e) => !this.taken.has(e.entryId));
    if (entry) this.taken.add(entry.entryId);
    return entry;
  }
  isTaken(entryId: string): boolean {
    return this.taken.has(entryId);
  }
}

/**
 * A refund that failed before it was booked is booked by neither half (§6a): its refund and its failure,
 * both missing from the ledger, net to nothing and agree with it.
 */
const nettedOut = (item: ProcessorItem, entries: EntriesByReference) =>
  ((item.kind === 'refund' && item.undone === true) || item.kind === 'refund_failed') &&
  !entries.has(failedPartner(item));

/** How an item of the period and its entry differ: the amount (with its currency), and a payment's fee. */
function differencesOf(item: ProcessorItem, entry: ReferencedEntry): AmountDifference[] {
  const base = { reference: item.reference, kind: item.kind, processorId: item.id, entryId: entry.entryId };
  const out: AmountDifference[] = [];
  if (item.amountMinor !== entry.amountMinor || item.currency !== entry.currency.toUpperCase())
    out.push({
      ...base,
      field: 'amount',
      processor: { amountMinor: item.amountMinor, currency: item.currency },
      ledger: { amountMinor: entry.amountMinor, currency: entry.currency },
    });
  // Only a payment's entry keeps the fee the processor charged; a reversal's is the vendor's share given back.
  if (item.kind === 'payment' && item.feeMinor !== entry.feeMinor)
    out.push({
      ...base,
      field: 'fee',
      processor: { amountMinor: item.feeMinor, currency: item.currency },
      ledger: { amountMinor: entry.feeMinor, currency: entry.currency },
    });
  return out;
}

/** Fees of the period's reversals (a dispute's fee) that no entry keeps, per balance currency. */
function unbookedFees(items: readonly ProcessorItem[]): UnbookedFees[] {
  const byCurrency = new Map<string, UnbookedFees>();
  for (const item of items) {
    if (item.kind === 'payment' || item.kind === 'other' || item.kind === 'payout' || item.balance.feeMinor === 0)
      continue;
    const sum = byCurrency.get(item.balance.currency) ?? { currency: item.balance.currency, feeMinor: 0, items: 0 };
    byCurrency.set(item.balance.currency, {
      ...sum,
      feeMinor: sum.feeMinor + item.balance.feeMinor,
      items: sum.items + 1,
    });
  }
  return [...byCurrency.values()];
}

const payoutLine = (payout: ProcessorPayout): PayoutLine => ({
  ...payout,
  differenceMinor: payout.paidOut ? payout.amountMinor - payout.paidOut.netMinor : null,
});

/** The processor's items against the ledger's entries: what matches, what is missing on either side, what differs. */
export function matchWithLedger(input: MatchInput): Findings {
  const entries = new EntriesByReference([...input.ledger, ...input.elsewhere]);
  const ofPeriod = input.items.filter((i) => inPeriod(i.createdAt, input.period));
  const missingInLedger: ProcessorLine[] = [];
  const amountsDiffer: AmountDifference[] = [];
  const otherItems: ProcessorLine[] = [];
  let matched = 0;
  // The period's items first, so an entry booked twice is left over in the period it was booked in.
  for (const item of [...ofPeriod, ...input.items.filter((i) => !inPeriod(i.createdAt, input.period))]) {
    if (item.kind === 'payout') continue;
    const reported = inPeriod(item.createdAt, input.period);
    if (item.kind === 'other') {
      if (reported) otherItems.push(lineOf(item));
      continue;
    }
    const entry = entries.take(item.reference);
    if (!reported) continue;
    const differences = entry ? differencesOf(item, entry) : [];
    if (!entry && !nettedOut(item, entries)) missingInLedger.push(lineOf(item));
    else if (differences.length > 0) amountsDiffer.push(...differences);
    else matched += 1;
  }
  const missingAtProcessor = input.ledger.filter((e) => !entries.isTaken(e.entryId));
  const payouts = input.payouts.map(payoutLine);
  const unbalanced = payouts.filter((p) => p.differenceMinor !== null && p.differenceMinor !== 0).length;
  return {
    matched,
    missingInLedger,
    missingAtProcessor,
    amountsDiffer,
    payouts,
    unbookedFees: unbookedFees(ofPeriod),
    otherItems,
    differences: missingInLedger.length + missingAtProcessor.length + amountsDiffer.length + unbalanced,
  };
}
