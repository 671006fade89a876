/**
 * The client script vendors put in the head of their page (docs/decisions.md §14): `window.tc` and the
 * `data-ts-*` attributes. Browser code only, no dependencies; src/widget/build.ts bundles it twice
 * with `__OPENTILL_SANDBOX__` defined, so the production script carries no sandbox-only code.
 *
 * Nothing here may throw into the vendor's page: DOM work runs inside `guard`, and failures show
 * as `data-ts-error` on the element (and a console warning) or as rejections of `tc`'s promises.
 * Its shapes are in types.ts; opentill's own events and success URL: docs/decisions.md §29; `locale`: §33.
 */
import { formatOneDecimalForBuyer } from '../domain/money/buyer-money.ts';
import type { BuyOptions, CheckoutEvent, EventName, Handler, PriceAnswer, PriceOptions, WidgetPrice } from './types.ts';

declare const __OPENTILL_SANDBOX__: boolean;

/** The embedded checkout has this long to say 'ready'; after it the customer goes there as a full page. */
const READY_TIMEOUT_MS = 8000;
const PREFILL = ['firstName', 'lastName', 'email', 'zipCode', 'coupon', 'payload', 'locale', 'quantity'] as const;
const WATCHED = ['data-ts-price', 'data-ts-button', 'data-ts-product', 'data-ts-zip-code', 'data-ts-style'];
if (__OPENTILL_SANDBOX__) WATCHED.push('data-ts-country');
const SELECTOR = '[data-ts-price],[data-ts-button]';
const BUTTON_CLASS = 'opentill-button';
const BUTTON_CSS =
  `.${BUTTON_CLASS}{display:inline-block;padding:.6em 1.25em;border:0;border-radius:.5em;background:#2550c8;color:#fff;` +
  `font:600 1em/1.25 system-ui,sans-serif;text-align:center;text-decoration:none;cursor:pointer}` +
  `.${BUTTON_CLASS}:hover{background:#1e43a8}.${BUTTON_CLASS}:focus-visible{outline:3px solid #9db4f0;outline-offset:2px}` +
  `.${BUTTON_CLASS}[aria-busy=true]{opacity:.7;cursor:progress}`;

const doc = document;
const win = window as unknown as Record<string, unknown>;
/** Read now: `document.currentScript` is only set while this script first runs. */
const script = (doc.currentScript || doc.querySelector('script[src*="/latest/widget"]')) as HTMLScriptElement | null;
const api = apiBase(script && script.src);
const defaultCountry = __OPENTILL_SANDBOX__ && script ? script.getAttribute('data-ts-country') : null;

const quotes = new Map<string, Promise<PriceAnswer>>();
/** Per price element: the (product, zip, country) it shows or is loading, and its text before we wrote a price. */
const shown = new WeakMap<Element, string>();
const originalText = new WeakMap<Element, string | null>();
/** Per button bound to checkout: whether its checkout is being started. */
const buttons = new WeakMap<Element, boolean>();
let styleInjected = false;
/** Closes the open checkout, if any, and answers where focus should return. */
let closeCheckout: (() => Element | null) | null = null;
const handlers: [string, Handler][] = [];

/** `https://pay.example/latest/widget.min.js` → `https://pay.example/public/v1`; a path prefix before /latest is kept. */
function apiBase(src: string | null): string | null {
  try {
    const url = new URL(src as string);
    const prefix = /^(.*)\/latest\/[^/]*$/.exec(url.pathname);
    return url.origin + (prefix ? prefix[1] : '') + (__OPENTILL_SANDBOX__ ? '/sandbox/public/v1' : '/public/v1');
  } catch {
    return null;
  }
}

function guard(work: () => void) {
  try {
    work();
  } catch (error) {
    warn(error);
  }
}

function warn(error: unknown) {
  console.warn('opentill:', error);
}

/** Runs `work` inside a promise, so a synchronous throw becomes a rejection. */
function attempt<T>(work: () => T | PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}

function requiredProductId(productId: unknown): string {
  if (typeof productId !== 'string' || !productId) throw new Error('opentill: a product ID is required.');
  return productId;
}

/** Sandbox only: the explicit country, else the script tag's data-ts-country. */
function countryOf(given: string | null | undefined): string {
  return __OPENTILL_SANDBOX__ ? (given || defaultCountry || '').trim().toUpperCase() : '';
}

/** One request to the public API; rejects with the server's `message` when it answers an error. */
function call<T>(path: string, init?: RequestInit): Promise<T> {
  // Every caller runs inside `attempt`: this throw is a rejection.
  if (!api) throw new Error("opentill: cannot find the script's own URL.");
  return fetch(api + path, init).then((response) =>
    // Not JSON (a proxy's error page): the status says enough.
    response
      .json()
      .catch(() => null)
      .then((body: { message?: unknown } | null) => {
        if (response.ok && body && typeof body === 'object') return body as T;
        throw new Error(
          (body && (body.message as string)) || `opentill: the request failed with HTTP ${response.status}.`,
        );
      }),
  );
}

/** The price for this customer; one request per distinct (product, zip, country), failures retried next time. */
function quote(productId: unknown, zip: string | null | undefined, country: string): Promise<PriceAnswer> {
  const query = new URLSearchParams();
  if (zip && zip.trim()) query.set('zip', zip.trim());
  if (__OPENTILL_SANDBOX__ && country) query.set('country', country);
  const search = query.toString();
  const path = `/price/${encodeURIComponent(requiredProductId(productId))}${search && `?${search}`}`;
  const asked = quotes.get(path);
  if (asked) return asked;
  const request = call<PriceAnswer>(path);
  quotes.set(path, request);
  request.catch(() => quotes.get(path) === request && quotes.delete(path));
  return request;
}

/** `href` as an http(s) URL (relative to `base`), else an error that names it: never a `javascript:` URL. */
function webUrl(href: unknown, name: string, base?: string): URL {
  const url = typeof href === 'string' ? new URL(href, base) : null;
  if (!url || !/^https?:$/.test(url.protocol)) throw new Error(`opentill: ${name} is not an http(s) URL.`);
  return url;
}

/** `tc.on`: `handler` runs on every event of that name, for the life of the page. */
function on(name: EventName, handler: Handler) {
  handlers.push([name, handler]);
}

/** Each handler of the event, and the script tag's `data-ts-event` function, apart: one that throws stops none other. */
function emit(name: EventName, productId: string, data: Record<string, unknown> = {}) {
  const event: CheckoutEvent = {
    name,
    productId,
    transactionId: (data.transactionId as string) || null,
    status: (data.status as string) || null,
  };
  // A checkout opened, so the script tag was found (`api`).
  const named = (script as HTMLScriptElement).getAttribute('data-ts-event');
  for (const [n, handler] of handlers) if (n === name) guard(() => handler(event));
  // Not a function: guard's warning says so on the console.
  if (named) guard(() => (win[named] as Handler)(event));
}

function getPrice(productId: string, options?: PriceOptions): Promise<WidgetPrice> {
  return attempt(() =>
    quote(productId, options && options.zipCode, __OPENTILL_SANDBOX__ ? countryOf(options && options.country) : ''),
  ).then(({ currency, price, priceNet, tax, taxName, taxRate }) => ({
    currency,
    price,
    priceNet,
    tax,
    taxName,
    taxRate,
  }));
}

function buy(productId: string, options?: BuyOptions): Promise<void> {
  const o = options || {};
  let success: URL | undefined;
  return attempt(() => {
    const body: Record<string, unknown> = { productId: requiredProductId(productId) };
    if (o.successUrl) success = webUrl(o.successUrl, 'successUrl', location.href);
    for (const field of PREFILL) {
      const value = o[field];
      if (value != null && value !== '') body[field] = String(value);
    }
    if (o.nonEditableEmail === true) body.nonEditableEmail = true;
    if (__OPENTILL_SANDBOX__ && countryOf(o.country)) body.country = countryOf(o.country);
    return call<{ url?: unknown; label?: string }>('/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }).then((answer) => {
    const url = webUrl(answer.url, "the server's checkout address");
    if (o.redirect === true) location.assign(url);
    else openCheckout(url, productId, answer.label as string, success);
  });
}

/**
 * The checkout in an iframe over the page. It is told this page's origin: only this origin may frame
 * it and hear from it. The page inside says 'ready' once loaded and 'close' when the customer closes
 * it; without 'ready' in time (blocked frame, slow network) the customer is sent to the checkout as a
 * full page instead. Messages count only from that iframe at the checkout's origin.
 */
function openCheckout(url: URL, productId: string, label: string, success?: URL) {
  const returnFocus = closeCheckout ? closeCheckout() : doc.activeElement;
  const framed = new URL(url);
  framed.searchParams.set('embedded', '1');
  framed.searchParams.set('origin', location.origin);
  // Inline styles (CSSOM, allowed by a strict style-src) beat any vendor rule that is not !important.
  const overlay = doc.createElement('div');
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-modal', 'true');
  overlay.setAttribute('aria-label', label);
  overlay.style.cssText =
    'position:fixed;top:0;left:0;width:100%;height:100%;margin:0;padding:0;border:0;z-index:2147483647;' +
    'display:flex;align-items:center;justify-content:center;background:rgba(17,24,39,.6)';
  const frame = doc.createElement('iframe');
  frame.title = label;
  frame.setAttribute('allow', 'payment');
  frame.style.cssText =
    'display:block;width:100%;max-width:520px;height:100%;max-height:760px;margin:0;padding:0;border:0;' +
    'border-radius:12px;background:#fff;box-shadow:0 12px 48px rgba(0,0,0,.35)';
  frame.src = framed.href;
  overlay.appendChild(frame);
  const root = doc.documentElement;
  const overflow = root.style.overflow;
  let paid = false;
  const timer = setTimeout(() => {
    close();
    location.assign(url);
  }, READY_TIMEOUT_MS);

  function onMessage(event: MessageEvent) {
    const data = event.data;
    if (event.source !== frame.contentWindow || event.origin !== url.origin || !data || data.source !== 'opentill')
      return;
    clearTimeout(timer); // any message ('ready' first) shows the checkout is there: no full page
    if (data.type === 'close') close(true);
    else if (data.type === 'failed') emit('checkout.failed', productId, data);
    else if (data.type === 'paid' && !paid) {
      // Once per checkout: its receipt says 'paid' again when it is shown again.
      paid = true;
      emit('checkout.paid', productId, data);
      if (success) {
        success.searchParams.set('transaction_id', data.transactionId);
        location.assign(success);
      }
    }
  }
  function onKey(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    }
  }
  // Keep focus in the dialog: tabbing out of the iframe comes back to it.
  function onFocus(event: FocusEvent) {
    if (!overlay.contains(event.target as Node)) frame.focus();
  }
  function close(restoreFocus?: boolean): Element | null {
    clearTimeout(timer);
    removeEventListener('message', onMessage);
    doc.removeEventListener('keydown', onKey, true);
    doc.removeEventListener('focusin', onFocus, true);
    overlay.remove();
    root.style.overflow = overflow;
    closeCheckout = null;
    emit('checkout.closed', productId);
    if (restoreFocus && returnFocus && returnFocus.isConnected && 'focus' in returnFocus)
      (returnFocus as HTMLElement).focus();
    return returnFocus;
  }
  addEventListener('message', onMessage);
  doc.addEventListener('keydown', onKey, true);
  doc.addEventListener('focusin', onFocus, true);
  root.style.overflow = 'hidden';
  (doc.body || root).appendChild(overlay);
  closeCheckout = close;
  frame.focus();
  emit('checkout.opened', productId);
}

/**
 * Amounts in the buyer's locale (the browser's language), as on the checkout and the invoice. The browser
 * supports its own language, so it goes to Intl as it is; one Intl refuses is formatted in 'en'.
 */
const money = (decimal: string, currency: string) => formatOneDecimalForBuyer(decimal, currency, navigator.language);

/** `data-ts-price`: the element's text becomes the localized total; tax details go to attributes. */
function showPrice(el: Element) {
  const country = __OPENTILL_SANDBOX__ ? countryOf(el.getAttribute('data-ts-country')) : '';
  const productId = el.getAttribute('data-ts-product');
  const zip = el.getAttribute('data-ts-zip-code');
  const key = `${productId}\n${zip}\n${country}`;
  if (shown.get(el) === key) return;
  shown.set(el, key);
  attempt(() => quote(productId, zip, country))
    .then((p) => {
      if (shown.get(el) !== key) return;
      const total = money(p.priceS, p.currency);
      const net = money(p.priceNetS, p.currency);
      if (!originalText.has(el)) originalText.set(el, el.textContent);
      el.textContent = total;
      el.setAttribute('data-ts-price-net', net);
      el.setAttribute('data-ts-tax-name', p.taxName);
      el.setAttribute('data-ts-tax-rate', p.taxRate as unknown as string); // set as its text
      el.removeAttribute('data-ts-error');
    })
    .catch((error: unknown) => {
      if (shown.get(el) !== key) return;
      if (originalText.has(el)) el.textContent = originalText.get(el) as string | null;
      for (const name of ['price-net', 'tax-name', 'tax-rate']) el.removeAttribute(`data-ts-${name}`);
      el.setAttribute('data-ts-error', error instanceof Error ? error.message : String(error));
      warn(error);
    });
}

function injectStyle() {
  if (styleInjected) return;
  styleInjected = true;
  const style = doc.createElement('style');
  style.textContent = BUTTON_CSS;
  // First in <head>, so the vendor's own rules of equal specificity win.
  const head = doc.head || doc.documentElement;
  head.insertBefore(style, head.firstChild);
}

/** `data-ts-button`: click (and Enter/Space on elements that are not buttons) starts checkout. */
function setUpButton(el: HTMLElement) {
  if (el.getAttribute('data-ts-style') === 'none') el.classList.remove(BUTTON_CLASS);
  else {
    injectStyle();
    el.classList.add(BUTTON_CLASS);
  }
  if (buttons.has(el)) return;
  buttons.set(el, false);
  el.addEventListener('click', (event) => {
    if (!el.hasAttribute('data-ts-button')) return;
    event.preventDefault();
    activate(el);
  });
  if (/^(button|input)$/i.test(el.tagName)) return;
  if (!el.hasAttribute('role')) el.setAttribute('role', 'button');
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0');
  el.addEventListener('keydown', (event) => {
    if (!el.hasAttribute('data-ts-button') || (event.key !== 'Enter' && event.key !== ' ')) return;
    event.preventDefault();
    activate(el);
  });
}

function activate(el: Element) {
  if (buttons.get(el)) return;
  const options: BuyOptions = {};
  for (const field of [...PREFILL, 'successUrl'] as const) {
    const value = el.getAttribute(`data-ts-${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    if (value) options[field] = value;
  }
  if (el.getAttribute('data-ts-non-editable-email') === 'true') options.nonEditableEmail = true;
  if (__OPENTILL_SANDBOX__) options.country = el.getAttribute('data-ts-country') || undefined;
  buttons.set(el, true);
  el.setAttribute('aria-busy', 'true');
  void buy(el.getAttribute('data-ts-product') as string, options)
    .then(
      () => el.removeAttribute('data-ts-error'),
      (error: Error) => {
        el.setAttribute('data-ts-error', error.message);
        warn(error);
      },
    )
    .then(() => {
      buttons.set(el, false);
      el.removeAttribute('aria-busy');
    });
}

function visit(el: Element) {
  if (!el.hasAttribute('data-ts-product')) return;
  if (el.hasAttribute('data-ts-price')) showPrice(el);
  if (el.hasAttribute('data-ts-button')) setUpButton(el as HTMLElement);
}

function scan(root: Element) {
  visit(root);
  root.querySelectorAll(SELECTOR).forEach(visit);
}

function start() {
  win.tc = { getPrice, buy, on };
  const root = doc.documentElement;
  // Elements the parser adds after this script, and those the page adds or changes later.
  new MutationObserver((records) =>
    guard(() => {
      for (const record of records) {
        if (record.type === 'attributes') visit(record.target as Element);
        else record.addedNodes.forEach((node) => node.nodeType === 1 && scan(node as Element));
      }
    }),
  ).observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: WATCHED });
  scan(root);
  doc.addEventListener('DOMContentLoaded', () => guard(() => scan(root)));
}

// Loaded twice (two script tags): the first copy serves the page.
if (!win.__opentill) {
  win.__opentill = true;
  guard(start);
}
