import { FORM_CARD_ENTRY } from '../../src/gateways/sandbox-gateway.ts';
import { sql } from 'kysely';
import type { PaymentGateway } from '../../src/domain/payments/gateway.ts';
import type { Database } from '../../src/store/database.ts';

/**
 * The sandbox's virtual network behind faults a real payment network has: the money moves and then
 * the call throws, or never answers, or answers after we gave up, or its answer is lost, or the
 * database write that follows the success fails. A fault hits the next `times` charges or refunds.
 * Or the network cannot be reached at all (`network-down`): no request arrives, lookups included,
 * until `heal`, so the reconciler then finds nothing under the attempt and voids it.
 */
export type Fault = 'throw-after-money' | 'timeout' | 'late-answer' | 'lost-answer' | 'db-write-fails' | 'network-down';
export const FAULTS: readonly Fault[] = [
  'throw-after-money',
  'timeout',
  'late-answer',
  'lost-answer',
  'db-write-fails',
  'network-down',
];

/** Longer than the protocol's gateway timeout in the fault tests (150 ms): the answer comes after we gave up. */
const LATE_MS = 400;

export function faultGateway(database: () => Database) {
  let real: PaymentGateway | undefined;
  const state = { fault: undefined as Fault | undefined, times: 0, calls: 0, lastCvc: undefined as string | undefined };

  const down = () => state.fault === 'network-down' && state.times > 0;
  /** Every call while the network is down, a lookup too, fails before it reaches the network. */
  async function reach<T>(perform: () => Promise<T>): Promise<T> {
    if (down()) throw new Error('ECONNREFUSED: the payment network cannot be reached');
    return perform();
  }

  async function inject<T>(perform: () => Promise<T>): Promise<T> {
    state.calls++;
    if (down()) return reach(perform);
    const fault = state.times > 0 ? state.fault : undefined;
    if (fault) state.times--;
    if (fault === 'late-answer') await new Promise((resolve) => setTimeout(resolve, LATE_MS));
    const result = await perform();
    if (fault === 'throw-after-money') throw new Error('ECONNRESET: the connection broke after the money moved');
    if (fault === 'timeout') return new Promise<T>(() => undefined);
    if (fault === 'lost-answer') return { status: 'UNKNOWN' } as T;
    if (fault === 'db-write-fails') await breakLedger(database());
    return result;
  }

  const gateway: PaymentGateway = {
    provider: 'SANDBOX',
    ...FORM_CARD_ENTRY,
    tokenize: (card, now) => {
      state.lastCvc = card.cvc;
      return real!.tokenize(card, now);
    },
    charge: (request) => inject(() => real!.charge(request)),
    refund: (request) => inject(() => real!.refund(request)),
    lookupCharge: (attemptId) => reach(() => real!.lookupCharge(attemptId)),
    lookupRefund: (refundId) => reach(() => real!.lookupRefund(refundId)),
  };
  return {
    gateway,
    /** The real sandbox gateway, once the app's database exists. */
    use(sandbox: PaymentGateway) {
      real = sandbox;
    },
    arm(fault: Fault | undefined, times = 1) {
      Object.assign(state, { fault, times: fault ? times : 0 });
    },
    /** The network is reachable again and the ledger writable. */
    heal: () => {
      if (state.fault === 'network-down') state.times = 0;
      return healLedger(database());
    },
    /** The security code the last card reached the network with. */
    lastCvc: () => state.lastCvc,
  };
}

/** Every ledger insert fails until `healLedger`: a database write that fails after the money moved. */
export async function breakLedger(database: Database) {
  if (database.dialect === 'sqlite') {
    await sql`create trigger if not exists fault_ledger before insert on ledger_entries begin select raise(abort, 'injected fault'); end`.execute(
      database.kysely,
    );
    return;
  }
  await sql`create or replace function fault_fail() returns trigger as $$ begin raise exception 'injected fault'; end $$ language plpgsql`.execute(
    database.kysely,
  );
  await sql`drop trigger if exists fault_ledger on ledger_entries`.execute(database.kysely);
  await sql`create trigger fault_ledger before insert on ledger_entries for each row execute function fault_fail()`.execute(
    database.kysely,
  );
}

export async function healLedger(database: Database) {
  if (database.dialect === 'sqlite') await sql`drop trigger if exists fault_ledger`.execute(database.kysely);
  else await sql`drop trigger if exists fault_ledger on ledger_entries`.execute(database.kysely);
}

/**
 * What the payment network did and what the ledger says, checked against each other: every charge
 * and refund the network made has exactly one ledger entry, and no attempt is left open.
 */
export async function moneyInvariants(database: Database) {
  const db = database.kysely;
  const charges = await db
    .selectFrom('sandbox_gateway_charges')
    .select(['attempt_id', 'reference'])
    .where('outcome', '=', 'success')
    .execute();
  const refunds = await db
    .selectFrom('sandbox_gateway_refunds')
    .select(['refund_id', 'reference'])
    .where('outcome', '=', 'success')
    .execute();
  const entries = await db.selectFrom('ledger_entries').select(['external_id', 'type', 'transaction_id']).execute();
  const open = await db
    .selectFrom('charge_attempts')
    .select(['attempt_key', 'status'])
    .where('status', 'in', ['PENDING', 'UNKNOWN'])
    .execute();
  const entriesOf = (reference: string) => entries.filter((e) => e.external_id === reference);
  return {
    charges: charges.length,
    refunds: refunds.length,
    chargesWithoutOneEntry: charges.filter((c) => entriesOf(c.reference).length !== 1).map((c) => c.attempt_id),
    refundsWithoutOneEntry: refunds.filter((r) => entriesOf(r.reference).length !== 1).map((r) => r.refund_id),
    entriesWithoutMovement: entries
      .filter((e) => e.external_id !== null && e.external_id !== '' && e.type !== 'CHARGEBACK')
      .filter(
        (e) =>
          !charges.some((c) => c.reference === e.external_id) && !refunds.some((r) => r.reference === e.external_id),
      )
      .map((e) => e.transaction_id),
    open: open.map((a) => `${a.attempt_key} ${a.status}`),
  };
}
