import type { Obj, Store } from './store.ts';

export interface Delivery {
  eventId: string;
  endpointUrl: string;
  status: number | 'error';
  at: number;
}

interface Pending {
  eventId: string;
  endpointId: string;
  /** Tried at least once (auto mode tries each once; deliverAll tries again). */
  attempted: boolean;
}

/**
 * Delivers events to the webhook endpoints registered through the API, as Stripe does: a POST of the
 * event as pretty-printed JSON, signed in `Stripe-Signature` with the endpoint's secret. Deliveries go
 * one at a time, in the order the events were created; one that fails stays queued.
 */
export class Webhooks {
  readonly deliveries: Delivery[] = [];
  private pending: Pending[] = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();

  private readonly store: Store;
  private readonly sign: (payload: string, secret: string) => string;
  readonly mode: 'auto' | 'manual';
  private readonly timeoutMs: number;
  constructor(
    store: Store,
    sign: (payload: string, secret: string) => string,
    mode: 'auto' | 'manual',
    timeoutMs = 10_000,
  ) {
    this.store = store;
    this.sign = sign;
    this.mode = mode;
    this.timeoutMs = timeoutMs;
  }

  private targets(type: string): Obj[] {
    return this.store
      .all('webhook_endpoints')
      .reverse()
      .filter((we) => we.status === 'enabled' && (we.enabled_events.includes('*') || we.enabled_events.includes(type)));
  }

  /** An event was created: it is owed to every endpoint subscribed to its type right now. */
  enqueue(event: Obj): void {
    const targets = this.targets(event.type);
    event.pending_webhooks = targets.length;
    for (const we of targets) this.pending.push({ eventId: event.id, endpointId: we.id, attempted: false });
  }

  /** Auto mode: deliver what has not been tried yet (called once the request that caused the events has been answered). */
  kick(): void {
    if (this.mode !== 'auto') return;
    this.chain = this.chain.then(() => this.run((p) => !p.attempted));
  }

  deliverAll(): Promise<void> {
    this.chain = this.chain.then(() => this.run(() => true));
    return this.chain;
  }

  /** Delivers one event now to every endpoint subscribed to its type (again, if it was delivered before). */
  deliver(eventId: string, times = 1): Promise<number> {
    const run = this.chain.then(async () => {
      const event = this.store.get('events', eventId);
      let last: number | 'error' = 'error';
      const targets = this.targets(event.type);
      if (targets.length === 0) throw new Error(`No enabled webhook endpoint is subscribed to ${event.type}`);
      for (const we of targets)
        for (let i = 0; i < times; i++) {
          last = await this.post(event, we);
          if (typeof last === 'number' && last >= 200 && last < 300) this.settle(event, we.id);
        }
      return typeof last === 'number' ? last : 0;
    });
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Resolves once every delivery started so far has been tried. */
  settled(): Promise<void> {
    return this.chain;
  }

  close(): void {
    this.abort.abort();
  }

  private async run(which: (p: Pending) => boolean): Promise<void> {
    for (const item of this.pending.filter(which)) {
      if (this.abort.signal.aborted) return;
      if (!this.pending.includes(item)) continue;
      item.attempted = true;
      const event = this.store.find('events', item.eventId)!;
      const we = this.store.find('webhook_endpoints', item.endpointId);
      if (!we || we.status !== 'enabled') {
        this.settle(event, item.endpointId);
        continue;
      }
      const status = await this.post(event, we);
      if (typeof status === 'number' && status >= 200 && status < 300) this.settle(event, we.id);
    }
  }

  private settle(event: Obj, endpointId: string): void {
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => !(p.eventId === event.id && p.endpointId === endpointId));
    if (this.pending.length < before) event.pending_webhooks = Math.max(0, event.pending_webhooks - 1);
  }

  private async post(event: Obj, we: Obj): Promise<number | 'error'> {
    const payload = JSON.stringify(event, null, 2);
    let status: number | 'error';
    try {
      const response = await fetch(we.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': this.sign(payload, we.secret),
          'cache-control': 'no-cache',
        },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      status = response.status;
    } catch {
      status = 'error';
    }
    this.deliveries.push({ eventId: event.id, endpointUrl: we.url, status, at: Date.now() });
    return status;
  }
}
