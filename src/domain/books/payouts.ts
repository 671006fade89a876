import type { Clock } from '../clock.ts';
import { invalidInput, invalidState, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { isIsoDate } from '../validation.ts';
import type { Environment, Vendor } from '../model.ts';
import type { Repositories, Store, StatementLine } from '../ports.ts';
import type { PayoutStatement, VendorBalance } from './payout-model.ts';
import { heldFrom, settle, statementWindow } from './payout-statement.ts';

export interface PayoutDeps {
  store: Store;
  clock: Clock;
  /** PAYOUT_HOLD_DAYS: how long a payment is held back from statements, for refunds and disputes. */
  holdDays: number;
}

/** Vendors' balances and payout statements (docs/decisions.md §22): what the platform owes each vendor. */
export function payoutService(deps: PayoutDeps) {
  // In the vendor's time: a sandbox whose clock the vendor moved ahead holds from that time.
  const balances = (vendorId: string, environment: Environment): Promise<VendorBalance[]> =>
    deps.store.payouts.balances(
      vendorId,
      environment,
      heldFrom(deps.clock.now({ vendorId, environment }), deps.holdDays),
    );
  return {
    /** A statement per currency the vendor has entries to cover in, up to the end of the day `until`. */
    create: (vendorId: string, environment: Environment, until: string) =>
      createStatements(deps, vendorId, environment, until),
    balances,
    /** Every vendor's balances (or one vendor's), what the operator owes each: the console's and `payouts balance`'s list. */
    everyBalance: async (
      environment: Environment,
      vendorId?: string,
    ): Promise<{ vendor: Vendor; balance: VendorBalance }[]> => {
      const vendors = (await deps.store.vendors.list()).filter((v) => vendorId === undefined || v.id === vendorId);
      const each = await Promise.all(
        vendors.map(async (vendor) => (await balances(vendor.id, environment)).map((balance) => ({ vendor, balance }))),
      );
      return each.flat();
    },
    list: (vendorId: string, environment: Environment) => deps.store.payouts.list(vendorId, environment),
    /** The statement, or undefined when there is none of that id. */
    find: (id: string): Promise<PayoutStatement | undefined> => deps.store.payouts.find(id),
    show: (id: string) => requireStatement(deps.store, id),
    /** The statement, its entries and the vendor's name: what its CSV and PDF are made of. */
    lines: async (id: string): Promise<{ statement: PayoutStatement; lines: StatementLine[]; vendorName: string }> => {
      const statement = await requireStatement(deps.store, id);
      const vendor = await deps.store.vendors.find(statement.vendorId);
      return { statement, lines: await deps.store.payouts.entries(id), vendorName: vendor?.name ?? statement.vendorId };
    },
    markPaid: (id: string, reference: string) => markPaid(deps, id, reference),
  };
}

export type PayoutService = ReturnType<typeof payoutService>;

async function requireStatement(store: Pick<Repositories, 'payouts'>, id: string): Promise<PayoutStatement> {
  const statement = await store.payouts.find(id);
  if (!statement) throw notFound(`Payout statement ${id}`);
  return statement;
}

async function createStatements(
  deps: PayoutDeps,
  vendorId: string,
  environment: Environment,
  until: string,
): Promise<PayoutStatement[]> {
  if (!isIsoDate(until)) throw invalidInput(`"${until}" is not a date: give the last day to cover as YYYY-MM-DD.`);
  // The vendor's time: a sandbox whose clock the vendor moved ahead books its entries in that time.
  const now = deps.clock.now({ vendorId, environment });
  return deps.store.transaction(async (repos) => {
    if (!(await repos.vendors.find(vendorId))) throw notFound(`Vendor ${vendorId}`);
    // Read from the index alone; a currency with nothing left to cover makes no statement (discarded below).
    const currencies = await repos.payouts.currencies(vendorId, environment);
    let number = await repos.payouts.lastNumber(vendorId, environment);
    const made: PayoutStatement[] = [];
    for (const currency of currencies) {
      const last = await repos.payouts.last(vendorId, environment, currency);
      const window = statementWindow(now, until, deps.holdDays, last);
      const carriedInMinor = last?.carriedOutMinor ?? 0;
      const draft: PayoutStatement = {
        id: newId('payout', now.getTime()),
        vendorId,
        environment,
        currency,
        number: number + 1,
        seq: (last?.seq ?? 0) + 1,
        ...window,
        createdAt: now.toISOString(),
        carriedInMinor,
        paid: null,
        ...settle(EMPTY, carriedInMinor),
      };
      if (!(await repos.payouts.insert(draft)))
        throw invalidState(
          `Another payout statement for vendor ${vendorId} was made at the same moment; nothing was made. Run the command again.`,
        );
      const sums = await repos.payouts.cover(draft.id, { vendorId, environment, currency, ...window });
      if (sums.count === 0) {
        await repos.payouts.discard(draft.id);
        continue;
      }
      const statement = { ...draft, ...settle(sums, carriedInMinor) };
      await repos.payouts.complete(statement);
      made.push(statement);
      number++;
    }
    return made;
  });
}

const EMPTY = {
  count: 0,
  grossMinor: 0,
  taxMinor: 0,
  refundsMinor: 0,
  chargebacksMinor: 0,
  processorFeesMinor: 0,
  platformFeesMinor: 0,
  incomeMinor: 0,
};

async function markPaid(
  deps: PayoutDeps,
  id: string,
  reference: string,
): Promise<{ statement: PayoutStatement; changed: boolean }> {
  const ref = reference.trim();
  if (!ref || ref.length > 200)
    throw invalidInput('Give the payment’s reference (a bank transfer id, say), up to 200 characters.');
  const statement = await requireStatement(deps.store, id);
  if (statement.paid) {
    if (statement.paid.reference === ref) return { statement, changed: false };
    throw invalidState(
      `Payout statement ${id} was marked paid already, on ${statement.paid.at} with reference ${statement.paid.reference}.`,
    );
  }
  const at = deps.clock.now().toISOString(); // real time: when the operator recorded the payment
  if (!(await deps.store.payouts.markPaid(id, at, ref))) return markPaid(deps, id, reference);
  return { statement: { ...statement, paid: { at, reference: ref } }, changed: true };
}
