import { randomBytes } from 'node:crypto';
import type { CardBehaviour } from './cards.ts';
import { invalidRequest, notFound } from './errors.ts';

export const API_VERSION = '2026-10-28.endive';

/** Stripe objects are kept as the JSON they are answered with. */
export type Obj = Record<string, any>;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}
export const newId = (prefix: string) => `${prefix}_${randomToken(24)}`;

/** Where an event came from: an API request (its id and idempotency key), or the dashboard / the bank (nulls). */
export interface RequestInfo {
  id: string | null;
  idempotency_key: string | null;
}
export const NO_REQUEST: RequestInfo = { id: null, idempotency_key: null };

type Collection =
  | 'customers'
  | 'payment_methods'
  | 'payment_intents'
  | 'setup_intents'
  | 'charges'
  | 'balance_transactions'
  | 'refunds'
  | 'disputes'
  | 'payouts'
  | 'events'
  | 'webhook_endpoints'
  | 'mandates'
  | 'payment_method_domains';

const OBJECT_NAMES: Record<Collection, string> = {
  customers: 'customer',
  payment_methods: 'payment_method',
  payment_intents: 'payment_intent',
  setup_intents: 'setup_intent',
  charges: 'charge',
  balance_transactions: 'balance_transaction',
  refunds: 'refund',
  disputes: 'dispute',
  payouts: 'payout',
  events: 'event',
  webhook_endpoints: 'webhook_endpoint',
  mandates: 'mandate',
  payment_method_domains: 'payment_method_domain',
};

const PREFIXES: Record<string, Collection> = {
  cus: 'customers',
  pm: 'payment_methods',
  pi: 'payment_intents',
  seti: 'setup_intents',
  ch: 'charges',
  txn: 'balance_transactions',
  re: 'refunds',
  dp: 'disputes',
  po: 'payouts',
  evt: 'events',
  we: 'webhook_endpoints',
  mandate: 'mandates',
  pmd: 'payment_method_domains',
};

/** A pending 3-D Secure challenge: which intent it settles, for which confirmation attempt. */
export interface Challenge {
  kind: 'payment_intent' | 'setup_intent';
  id: string;
}

/** Everything the stand-in account holds, in memory. */
export class Store {
  readonly collections = new Map<Collection, Map<string, Obj>>();
  /** Creation order, to list newest first even within one second. */
  private readonly order = new Map<string, number>();
  private seq = 0;
  /** What each PaymentMethod's card does at the bank; the card number itself is never kept. */
  readonly behaviour = new Map<string, CardBehaviour>();
  /** PaymentMethods whose card was set up with 3-D Secure (a SetupIntent or a payment with setup_future_usage). */
  readonly setUpWithAuthentication = new Set<string>();
  /** PaymentMethods used without a customer, or detached: Stripe refuses to use them again. */
  readonly spent = new Set<string>();
  /** Pending 3-D Secure challenges by their unguessable token. */
  readonly challenges = new Map<string, Challenge>();
  /** The payout each balance transaction was paid out in (Stripe's `payout` list filter; not a field of the object). */
  readonly paidOutIn = new Map<string, string>();
  readonly account: Obj;
  onEvent: (event: Obj) => void = () => {};

  readonly now: () => number;
  constructor(now: () => number) {
    this.now = now;
    for (const c of Object.keys(OBJECT_NAMES) as Collection[]) this.collections.set(c, new Map());
    this.account = {
      id: `acct_${randomToken(16)}`,
      object: 'account',
      business_profile: { mcc: null, name: 'opentill (Stripe stand-in)', support_email: null, url: null },
      business_type: 'company',
      capabilities: { card_payments: 'active', transfers: 'active' },
      charges_enabled: true,
      country: 'US',
      created: this.created(),
      default_currency: 'usd',
      details_submitted: true,
      email: null,
      metadata: {},
      payouts_enabled: true,
      settings: {
        dashboard: { display_name: 'opentill', timezone: 'Etc/UTC' },
        payments: { statement_descriptor: 'OPENTILL' },
      },
      type: 'standard',
    };
  }

  created(): number {
    return Math.floor(this.now() / 1000);
  }

  put(collection: Collection, object: Obj): Obj {
    const map = this.collections.get(collection)!;
    if (!map.has(object.id)) this.order.set(object.id, this.seq++);
    map.set(object.id, object);
    return object;
  }

  find(collection: Collection, id: string): Obj | undefined {
    return this.collections.get(collection)!.get(id);
  }

  get(collection: Collection, id: string, param = 'id'): Obj {
    const found = this.find(collection, id);
    if (!found) throw notFound(OBJECT_NAMES[collection], id, param);
    return found;
  }

  /** Newest first, as Stripe lists. */
  all(collection: Collection): Obj[] {
    return [...this.collections.get(collection)!.values()].sort(
      (a, b) => b.created - a.created || this.order.get(b.id)! - this.order.get(a.id)!,
    );
  }

  byId(id: string): Obj | undefined {
    const prefix = id.slice(0, id.indexOf('_'));
    const collection = PREFIXES[prefix];
    return collection ? this.find(collection, id) : undefined;
  }

  /** Records an event with a snapshot of the object as it is now. */
  emit(type: string, object: Obj, request: RequestInfo, previousAttributes?: Obj): Obj {
    const event: Obj = {
      id: newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: this.created(),
      data: previousAttributes
        ? { object: structuredClone(object), previous_attributes: previousAttributes }
        : { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 0,
      request: { ...request },
      type,
    };
    this.put('events', event);
    this.onEvent(event);
    return event;
  }

  /** Replaces ids by the objects they name along each `expand` path (`latest_charge.balance_transaction`), as Stripe does. */
  expand(object: Obj, paths: readonly string[], allowed: readonly string[]): Obj {
    const out = structuredClone(object);
    for (const path of paths) {
      if (!allowed.includes(path))
        throw invalidRequest(`This property cannot be expanded (${path}).`, { param: 'expand' });
      if (path.split('.').length > 4)
        throw invalidRequest(`You cannot expand more than 4 levels of a property. Property: ${path}`, {
          param: 'expand',
        });
      this.expandPath(out, path.split('.'));
    }
    return out;
  }

  private expandPath(target: Obj, parts: string[]): void {
    const [head, ...rest] = parts;
    if (head === 'data' && Array.isArray(target.data)) {
      for (const item of target.data) this.expandPath(item, rest);
      return;
    }
    const value = target[head!];
    if (typeof value === 'string') {
      const found = this.byId(value);
      if (found) target[head!] = structuredClone(found);
    }
    const next = target[head!];
    if (rest.length > 0 && next && typeof next === 'object') this.expandPath(next, rest);
  }
}
