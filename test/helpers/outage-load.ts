import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { hiddenFields, paidForm } from '../../support/checkout-form.ts';
import type { Schema } from '../../src/store/schema.ts';

/**
 * A vendor's customers and integration during an outage test (test/outages/): hosted-checkout
 * purchases, refunds and stored-card charges with an Idempotency-Key, reads and the feed, spread over
 * several `opentill serve` processes. Each request is retried as a well-behaved client retries it,
 * unchanged (the same form token, the same key): after a 503 or a "still in progress" 409, and through
 * a "being confirmed" 202, until it has a final answer. Every answer is recorded in the current phase,
 * with its latency, so a test can say what clients got before, during and after the fault.
 */
export interface PhaseFigures {
  phase: string;
  statuses: Record<string, number>;
  p99Ms: number;
  answers: number;
}

export class PhaseRecorder {
  #phase = 'setup';
  readonly #phases = new Map<string, { statuses: Map<string, number>; latencies: number[] }>();

  start(phase: string) {
    this.#phase = phase;
  }

  /** `status` 0 is a connection that failed (refused, reset): a process not listening. */
  record(status: number, ms: number) {
    let phase = this.#phases.get(this.#phase);
    if (!phase) this.#phases.set(this.#phase, (phase = { statuses: new Map(), latencies: [] }));
    const key = status === 0 ? 'no connection' : String(status);
    phase.statuses.set(key, (phase.statuses.get(key) ?? 0) + 1);
    phase.latencies.push(ms);
  }

  figures(phase: string): PhaseFigures {
    const recorded = this.#phases.get(phase) ?? { statuses: new Map<string, number>(), latencies: [] };
    const sorted = [...recorded.latencies].sort((a, b) => a - b);
    const p99 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]! : 0;
    return { phase, statuses: Object.fromEntries(recorded.statuses), p99Ms: Math.round(p99), answers: sorted.length };
  }

  /** One line per phase: what clients got and the p99 latency of an answer. */
  table(): string {
    return [...this.#phases.keys()]
      .map((name) => {
        const f = this.figures(name);
        const statuses = Object.entries(f.statuses)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', ');
        return `${name.padEnd(10)} ${String(f.answers).padStart(6)} answers, p99 ${String(f.p99Ms).padStart(5)} ms (${statuses})`;
      })
      .join('\n');
  }
}

export interface LoadVendor {
  auth: string;
  once: string;
  vaulted: string;
}

export interface LoadOutcome {
  /** E-mails of purchases the buyer saw a receipt for. */
  purchases: string[];
  /** Transactions refunded with a 200. */
  refunds: Set<string>;
  /** Stored-card charges answered SUCCESS, per vaulted transaction. */
  vaultedCharges: Map<string, number>;
}

/** The client: requests go round the processes' ports; answers are recorded; a request is retried until it has a final answer. */
export function outageClient(ports: readonly number[], recorder: PhaseRecorder) {
  let turn = 0;
  let abandoned = false;
  const once = async (
    path: string,
    init: RequestInit,
  ): Promise<{ status: number; text: string; retryAfter: string | null }> => {
    const port = ports[turn++ % ports.length]!;
    const started = performance.now();
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, signal: AbortSignal.timeout(20_000) });
      const text = await res.text();
      recorder.record(res.status, performance.now() - started);
      return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
    } catch {
      recorder.record(0, performance.now() - started);
      return { status: 0, text: '', retryAfter: null };
    }
  };
  /** Sends until the answer is final: not a 503, a 409 to retry or a 202 still being confirmed. Every 503 must say when to retry. */
  const send = async (path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> => {
    for (const started = performance.now(); ;) {
      if (abandoned) throw new Error(`${path}: abandoned, the test is over`);
      const answer = await once(path, init);
      const retry =
        answer.status === 0 ||
        answer.status === 503 ||
        answer.status === 202 ||
        (answer.status === 409 && /REQUEST_IN_PROGRESS|PAYMENT_PENDING/.test(answer.text));
      if (!retry) return answer;
      if (answer.status === 503) assert.match(answer.retryAfter ?? '', /^\d+$/, `a 503 says when to retry: ${path}`);
      assert.ok(
        performance.now() - started < 150_000,
        `${path} got a final answer (last: ${answer.status} ${answer.text.slice(0, 200)})`,
      );
      await sleep(150);
    }
  };
  /** Stops every request waiting to be retried: the test is over (it failed midway). */
  const abandon = () => {
    abandoned = true;
  };
  return { send, abandon };
}

/**
 * What each buyer and the integration wait between their requests. Unpaced, the load kept both cores
 * busy (460 purchases in 17 s, PostgreSQL alone 10 core-s) and so took them from the test run beside it;
 * paced, every phase still meets requests in flight, which is what the faults need.
 */
const PACE_MS = 40;

/** Runs the vendor's customers and integration against the processes until `running()` is false. */
export function mixedLoad(
  client: ReturnType<typeof outageClient>,
  vendor: LoadVendor,
  vaultedTransaction: string,
  running: () => boolean,
) {
  const outcome: LoadOutcome = { purchases: [], refunds: new Set(), vaultedCharges: new Map() };
  const authed = (extra: Record<string, string> = {}) => ({ authorization: vendor.auth, ...extra });
  const form = (async () => {
    const page = await client.send(`/sandbox/payment/product/${vendor.once}?country=DE`);
    return hiddenFields(page.text);
  })();
  const buy = async (n: number) => {
    const email = `buyer-${n}-${randomBytes(3).toString('hex')}@outage.test`;
    const body = paidForm(await form, {
      token: `outage-${randomBytes(12).toString('hex')}`,
      email,
      firstName: 'Out',
      lastName: `Age ${n}`,
    });
    const res = await client.send(`/sandbox/payment/product/${vendor.once}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.match(res.text, /<h1>Thank you<\/h1>/);
    outcome.purchases.push(email);
  };
  const purchasing = async () => {
    for (let n = 0; running(); n++) {
      await buy(n);
      await sleep(PACE_MS);
    }
  };
  const refunding = async () => {
    for (let next = 0; running();) {
      const email = outcome.purchases[next];
      if (email === undefined) {
        await sleep(100);
        continue;
      }
      next += 2;
      const list = await client.send(`/sandbox/v1/transactions/${encodeURIComponent(email)}`, { headers: authed() });
      const [tx] = JSON.parse(list.text) as { id: string }[];
      assert.ok(tx, `${email}'s acknowledged purchase is there`);
      const res = await client.send(`/sandbox/v1/refund-transaction/${tx.id}`, {
        method: 'POST',
        headers: authed({ 'idempotency-key': `refund-${tx.id}` }),
      });
      assert.equal(res.status, 200, res.text);
      outcome.refunds.add(tx.id);
    }
  };
  const charging = async () => {
    while (running()) {
      const res = await client.send(`/sandbox/v1/charge-vaulted/${vaultedTransaction}`, {
        method: 'POST',
        headers: authed({
          'content-type': 'application/json',
          'idempotency-key': `vaulted-${randomBytes(8).toString('hex')}`,
        }),
        body: JSON.stringify({ prices: [{ currency: 'USD', value: 7 }] }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((JSON.parse(res.text) as { status: string }).status, 'SUCCESS');
      outcome.vaultedCharges.set(vaultedTransaction, (outcome.vaultedCharges.get(vaultedTransaction) ?? 0) + 1);
      await sleep(PACE_MS);
    }
  };
  const reading = async () => {
    while (running()) {
      const feed = await client.send('/sandbox/v1/changed-transactions?limit=20', { headers: authed() });
      assert.equal(feed.status, 200, feed.text);
      for (const item of (JSON.parse(feed.text) as { id: string }[]).slice(0, 5)) {
        assert.equal((await client.send(`/sandbox/v1/transaction/${item.id}`, { headers: authed() })).status, 200);
        assert.equal(
          (await client.send(`/sandbox/v1/changed-transactions/${item.id}`, { method: 'POST', headers: authed() }))
            .status,
          200,
        );
      }
      await sleep(PACE_MS);
    }
  };
  const done = Promise.all([purchasing(), purchasing(), refunding(), charging(), reading(), reading()]);
  return { outcome, done };
}

/**
 * Money after the fault: every acknowledged purchase exists once with one payment (and one refund where
 * one was acknowledged), every acknowledged stored-card charge is booked once, each charge the sandbox
 * network took is one attempt, and every payment is one succeeded charge.
 */
export async function assertMoneyBookedOnce(db: Kysely<Schema>, outcome: LoadOutcome) {
  for (const email of outcome.purchases) {
    const rows = await db.selectFrom('transactions').select('id').where('email', '=', email).execute();
    assert.equal(rows.length, 1, `${email}: one transaction`);
    const entries = await db
      .selectFrom('ledger_entries')
      .select('type')
      .where('transaction_id', '=', rows[0]!.id)
      .execute();
    assert.equal(entries.filter((e) => e.type === 'ONETIME_PAYMENT').length, 1, `${email}: one payment`);
    assert.equal(
      entries.filter((e) => e.type === 'ONETIME_PAYMENT_REFUND').length,
      outcome.refunds.has(rows[0]!.id) ? 1 : 0,
      `${email}: its refunds`,
    );
  }
  for (const [vault, acknowledged] of outcome.vaultedCharges) {
    const entries = await db
      .selectFrom('ledger_entries')
      .select('type')
      .where('transaction_id', '=', vault)
      .where('type', '=', 'VAULTED_PAYMENT')
      .execute();
    assert.equal(entries.length, acknowledged, `${vault}: one payment per acknowledged charge`);
  }
  const charged = (await db.selectFrom('sandbox_gateway_charges').select(['attempt_id', 'outcome']).execute()).filter(
    (c) => c.outcome === 'SUCCEEDED',
  );
  assert.equal(new Set(charged.map((c) => c.attempt_id)).size, charged.length, 'one charge per attempt');
  const succeeded = await db
    .selectFrom('charge_attempts')
    .select('id')
    .where('status', '=', 'SUCCEEDED')
    .where('amount_minor', '>', 0)
    .where('kind', '!=', 'REFUND')
    .execute();
  const payments = await db
    .selectFrom('ledger_entries')
    .select('id')
    .where('type', 'in', ['ONETIME_PAYMENT', 'SUBSCRIPTION_PAYMENT', 'VAULTED_PAYMENT'])
    .execute();
  assert.equal(payments.length, succeeded.length, 'one payment per succeeded charge');
}

/** Waits until no charge attempt is left open: the reconciler settled what the fault left unknown. */
export async function attemptsSettled(db: Kysely<Schema>) {
  for (let i = 0; ; i++) {
    const open = await db
      .selectFrom('charge_attempts')
      .select('id')
      .where('status', 'in', ['PENDING', 'UNKNOWN'])
      .execute();
    if (open.length === 0) return;
    assert.ok(i < 600, `open attempts settled: ${open.length} left`);
    await sleep(100);
  }
}
