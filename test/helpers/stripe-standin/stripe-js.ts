import { ACCOUNT_METHODS } from './methods.ts';

/**
 * The stand-in Stripe.js, served at /v3/, and the pages it opens: the Payment Element (an iframe on the
 * stand-in's origin, so card data stays inside it) and the 3-D Secure challenge. Written as plain
 * browser JavaScript in strings; it implements the calls opentill's pages use, with Stripe.js's
 * signatures and results:
 *   Stripe(publishableKey) · stripe.elements({mode, amount, currency, setupFutureUsage, …} | {clientSecret})
 *   elements.create('payment') · element.mount/unmount/destroy/on/off/once/update/focus/clear
 *   elements.submit() · elements.update() · elements.getElement('payment')
 *   stripe.confirmPayment({elements, clientSecret, confirmParams, redirect})
 *   stripe.confirmSetup({elements, clientSecret, confirmParams, redirect})
 *   stripe.handleNextAction({clientSecret}) · stripe.retrievePaymentIntent(cs) · stripe.retrieveSetupIntent(cs)
 *   stripe.createPaymentMethod({elements, params})
 */

export function stripeJs(origin: string, apiVersion: string): string {
  return STRIPE_JS.replace('__ORIGIN__', JSON.stringify(origin))
    .replace('__API_VERSION__', JSON.stringify(apiVersion))
    .replace('__ACCOUNT_METHODS__', JSON.stringify(ACCOUNT_METHODS));
}

const STRIPE_JS = `/* Stripe.js stand-in for opentill's tests. Not Stripe's code. */
(function () {
  'use strict';
  if (window.Stripe && window.Stripe.__standin) return;
  var ORIGIN = __ORIGIN__;
  var API_VERSION = __API_VERSION__;
  var ACCOUNT_METHODS = __ACCOUNT_METHODS__;

  // What the Payment Element offers, as Stripe's dynamic payment methods decide for a deferred intent:
  // the account's types that take the currency and, when the method is kept (setup mode,
  // setupFutureUsage), can be reused; \`paymentMethodTypes\` narrows them.
  function offeredTypes(o) {
    var kept = o.mode === 'setup' || !!o.setupFutureUsage;
    var currency = o.currency ? String(o.currency).toLowerCase() : null;
    return Object.keys(ACCOUNT_METHODS).filter(function (type) {
      var m = ACCOUNT_METHODS[type];
      if (o.paymentMethodTypes && o.paymentMethodTypes.indexOf(type) === -1) return false;
      return (!currency || o.mode === 'setup' || !m.currencies || m.currencies.indexOf(currency) !== -1) && (!kept || m.reusable);
    });
  }

  function IntegrationError(message) {
    var error = new Error(message);
    error.name = 'IntegrationError';
    return error;
  }

  function encode(params, prefix, out) {
    out = out || [];
    Object.keys(params).forEach(function (key) {
      var value = params[key];
      var name = prefix ? prefix + '[' + key + ']' : key;
      if (value === undefined || value === null) return;
      if (typeof value === 'object') encode(value, name, out);
      else out.push(encodeURIComponent(name) + '=' + encodeURIComponent(String(value)));
    });
    return out.join('&');
  }

  function api(key, method, path, params) {
    var query = encode(params || {});
    var url = ORIGIN + path + (method === 'GET' && query ? '?' + query : '');
    return fetch(url, {
      method: method,
      headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/x-www-form-urlencoded', 'Stripe-Version': API_VERSION },
      body: method === 'GET' ? undefined : query,
    }).then(
      function (response) {
        return response.json();
      },
      function () {
        return { error: { type: 'api_connection_error', message: 'We could not connect to Stripe. Please check your internet connection and try again.' } };
      }
    );
  }

  function intentId(clientSecret) {
    return String(clientSecret).split('_secret_')[0];
  }

  function checkClientSecret(kind, clientSecret, caller) {
    if (typeof clientSecret !== 'string' || clientSecret.indexOf('_secret_') === -1)
      throw IntegrationError('Invalid value for ' + caller + ': clientSecret should be a client secret of the form ' + (kind === 'payment' ? 'pi' : 'seti') + '_..._secret_.... You specified: ' + clientSecret + '.');
    if (kind === 'payment' && clientSecret.indexOf('seti_') === 0)
      throw IntegrationError('Your code called ' + caller + '() but you passed a client_secret associated with a SetupIntent. Did you mean to call confirmSetup() instead?');
    if (kind === 'setup' && clientSecret.indexOf('pi_') === 0)
      throw IntegrationError('Your code called ' + caller + '() but you passed a client_secret associated with a PaymentIntent. Did you mean to call confirmPayment() instead?');
  }

  // ------------------------------------------------------------------ The Payment Element
  var frameCount = 0;

  function PaymentElement(elements, options) {
    this._elements = elements;
    this._options = options || {};
    this._handlers = {};
    this._id = 'standin-' + ++frameCount + '-' + Math.random().toString(36).slice(2);
    this._iframe = null;
    this._mounted = false;
    this._pending = {};
    this._seq = 0;
    this._complete = false;
    this._empty = true;
    this._resetReady();
    this._onMessage = this._onMessage.bind(this);
    window.addEventListener('message', this._onMessage);
  }
  PaymentElement.prototype._resetReady = function () {
    var self = this;
    this._ready = new Promise(function (resolve) {
      self._resolveReady = resolve;
    });
  };
  PaymentElement.prototype._emit = function (event, payload) {
    (this._handlers[event] || []).slice().forEach(function (handler) {
      handler(payload);
    });
  };
  PaymentElement.prototype._onMessage = function (event) {
    if (event.origin !== ORIGIN || !this._iframe || event.source !== this._iframe.contentWindow) return;
    var message = event.data;
    if (!message || message.standin !== this._id) return;
    if (message.type === 'ready') {
      this._resolveReady();
      this._emit('ready', { elementType: 'payment' });
    } else if (message.type === 'change') {
      this._complete = message.complete;
      this._empty = message.empty;
      this._elements._submitted = false;
      var change = { elementType: 'payment', complete: message.complete, empty: message.empty, collapsed: false, value: { type: 'card' } };
      if (message.error) change.error = message.error;
      this._emit('change', change);
    } else if (message.type === 'resize') {
      this._iframe.style.height = message.height + 'px';
    } else if (message.type === 'focus' || message.type === 'blur') {
      this._emit(message.type, { elementType: 'payment' });
    } else if (message.type === 'reply' && this._pending[message.seq]) {
      this._pending[message.seq](message.result);
      delete this._pending[message.seq];
    }
  };
  PaymentElement.prototype._call = function (type, payload) {
    var self = this;
    if (!this._mounted) return Promise.reject(IntegrationError('The Payment Element is not mounted.'));
    return this._ready.then(function () {
      return new Promise(function (resolve) {
        var seq = ++self._seq;
        self._pending[seq] = resolve;
        self._iframe.contentWindow.postMessage({ standin: self._id, type: type, seq: seq, payload: payload || {} }, ORIGIN);
      });
    });
  };
  PaymentElement.prototype.mount = function (target) {
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container)
      throw IntegrationError('The selector you specified (' + target + ') applies to no DOM elements that are currently on the page. Make sure the element exists on the page before calling mount().');
    if (this._mounted) throw IntegrationError('This Element is already mounted. Use unmount() to unmount the Element before re-mounting.');
    var config = { id: this._id, key: this._elements._stripe._key, parentOrigin: window.location.origin, locale: this._elements._options.locale || 'auto', methods: offeredTypes(this._elements._options) };
    var iframe = document.createElement('iframe');
    iframe.name = this._id;
    iframe.title = 'Secure payment input frame';
    iframe.setAttribute('frameborder', '0');
    iframe.setAttribute('allowtransparency', 'true');
    iframe.setAttribute('scrolling', 'no');
    iframe.setAttribute('allow', 'payment *');
    iframe.style.cssText = 'border:none;margin:0;padding:0;width:100%;min-width:100%;height:190px;display:block;overflow:hidden;color-scheme:light only;';
    iframe.src = ORIGIN + '/elements/payment.html#' + encodeURIComponent(JSON.stringify(config));
    container.appendChild(iframe);
    this._iframe = iframe;
    this._mounted = true;
  };
  PaymentElement.prototype.unmount = function () {
    if (this._iframe && this._iframe.parentNode) this._iframe.parentNode.removeChild(this._iframe);
    this._iframe = null;
    this._mounted = false;
    this._resetReady();
  };
  PaymentElement.prototype.destroy = function () {
    this.unmount();
    window.removeEventListener('message', this._onMessage);
    this._elements._element = null;
  };
  PaymentElement.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };
  PaymentElement.prototype.off = function (event, handler) {
    this._handlers[event] = (this._handlers[event] || []).filter(function (h) {
      return handler !== undefined && h !== handler;
    });
    return this;
  };
  PaymentElement.prototype.once = function (event, handler) {
    var self = this;
    var wrapper = function (payload) {
      self.off(event, wrapper);
      handler(payload);
    };
    return this.on(event, wrapper);
  };
  PaymentElement.prototype.update = function (options) {
    Object.assign(this._options, options || {});
  };
  PaymentElement.prototype.focus = function () {
    if (this._mounted) this._call('focus');
  };
  PaymentElement.prototype.blur = function () {
    if (this._mounted) this._call('blur');
  };
  PaymentElement.prototype.clear = function () {
    if (this._mounted) this._call('clear');
  };
  PaymentElement.prototype.collapse = function () {};

  // ------------------------------------------------------------------ Elements
  function Elements(stripe, options) {
    options = options || {};
    if (!options.clientSecret && !options.mode)
      throw IntegrationError('Invalid value for elements(): either clientSecret or mode should be specified.');
    if (options.clientSecret && options.mode) throw IntegrationError('Invalid value for elements(): specify either clientSecret or mode, not both.');
    if (options.mode && ['payment', 'setup', 'subscription'].indexOf(options.mode) === -1)
      throw IntegrationError('Invalid value for elements(): mode should be one of payment, setup, subscription. You specified: ' + options.mode + '.');
    if ((options.mode === 'payment' || options.mode === 'subscription') && (typeof options.amount !== 'number' || !options.currency))
      throw IntegrationError('Invalid value for elements(): amount and currency are required when mode is ' + options.mode + '.');
    if (options.currency && !/^[a-zA-Z]{3}$/.test(options.currency)) throw IntegrationError('Invalid value for elements(): currency should be a 3-letter currency code.');
    this._stripe = stripe;
    this._options = Object.assign({}, options);
    this._mode = options.mode || null;
    this._clientSecret = options.clientSecret || null;
    this._element = null;
    this._submitted = false;
  }
  Elements.prototype.create = function (type, options) {
    if (type !== 'payment') throw IntegrationError('The Stripe stand-in implements only the Payment Element, not ' + type + '.');
    if (this._element) throw IntegrationError('Can only create one Element of type payment.');
    this._element = new PaymentElement(this, options);
    return this._element;
  };
  Elements.prototype.getElement = function (type) {
    return type === 'payment' ? this._element : null;
  };
  Elements.prototype.update = function (options) {
    Object.assign(this._options, options || {});
    if (options && options.mode) this._mode = options.mode;
  };
  Elements.prototype.fetchUpdates = function () {
    return Promise.resolve({});
  };
  Elements.prototype.submit = function () {
    var self = this;
    if (!this._element || !this._element._mounted)
      return Promise.resolve({ error: { type: 'validation_error', code: 'incomplete', message: 'The Payment Element is not mounted.' } });
    return this._element._call('submit').then(function (result) {
      if (result.error) return { error: result.error };
      self._submitted = true;
      return {};
    });
  };

  // ------------------------------------------------------------------ 3-D Secure
  function challenge(url) {
    return new Promise(function (resolve) {
      var overlay = document.createElement('div');
      overlay.setAttribute('data-stripe-standin', '3ds');
      overlay.style.cssText = 'position:fixed;inset:0;background:rgba(16,24,40,0.55);display:flex;align-items:center;justify-content:center;z-index:2147483647;';
      var frame = document.createElement('iframe');
      frame.title = '3D Secure authentication';
      frame.name = 'stripe-standin-3ds';
      frame.src = url;
      frame.style.cssText = 'width:420px;max-width:94vw;height:420px;max-height:90vh;border:0;border-radius:8px;background:#fff;box-shadow:0 12px 40px rgba(0,0,0,0.3);';
      overlay.appendChild(frame);
      document.body.appendChild(overlay);
      function onMessage(event) {
        if (event.origin !== ORIGIN || event.source !== frame.contentWindow || !event.data || event.data.type !== 'standin-3ds-done') return;
        window.removeEventListener('message', onMessage);
        overlay.parentNode.removeChild(overlay);
        resolve();
      }
      window.addEventListener('message', onMessage);
    });
  }

  function retrieve(stripe, kind, clientSecret) {
    var path = (kind === 'payment' ? '/v1/payment_intents/' : '/v1/setup_intents/') + intentId(clientSecret);
    return api(stripe._key, 'GET', path, { client_secret: clientSecret });
  }

  function outcome(kind, intent) {
    var name = kind === 'payment' ? 'paymentIntent' : 'setupIntent';
    var lastError = kind === 'payment' ? intent.last_payment_error : intent.last_setup_error;
    if (intent.status === 'requires_payment_method' && lastError) {
      var error = Object.assign({}, lastError);
      error[kind === 'payment' ? 'payment_intent' : 'setup_intent'] = intent;
      return { error: error };
    }
    var result = {};
    result[name] = intent;
    return result;
  }

  function handleActions(stripe, kind, intent, clientSecret) {
    if (intent.status !== 'requires_action' || !intent.next_action) return Promise.resolve(intent);
    var action = intent.next_action;
    var url = action.type === 'use_stripe_sdk' ? action.use_stripe_sdk.stripe_js : action.type === 'redirect_to_url' ? action.redirect_to_url.url : null;
    if (!url) return Promise.resolve(intent);
    return challenge(url).then(function () {
      return retrieve(stripe, kind, clientSecret);
    });
  }

  function finish(kind, result, clientSecret, redirect, returnUrl) {
    if (result.error || redirect !== 'always') return result;
    var intent = result.paymentIntent || result.setupIntent;
    var prefix = kind === 'payment' ? 'payment_intent' : 'setup_intent';
    var target = returnUrl + (returnUrl.indexOf('?') === -1 ? '?' : '&') + prefix + '=' + encodeURIComponent(intent.id) + '&' + prefix + '_client_secret=' + encodeURIComponent(clientSecret) + '&redirect_status=succeeded';
    window.location.assign(target);
    return new Promise(function () {});
  }

  function confirmIntent(stripe, kind, options) {
    var caller = kind === 'payment' ? 'stripe.confirmPayment' : 'stripe.confirmSetup';
    options = options || {};
    var elements = options.elements;
    var confirmParams = options.confirmParams || {};
    var redirect = options.redirect || 'always';
    if (redirect !== 'always' && redirect !== 'if_required') throw IntegrationError('Invalid value for ' + caller + '(): redirect should be one of always, if_required.');
    if (redirect === 'always' && !confirmParams.return_url)
      throw IntegrationError(caller + "(): the \\\`confirmParams.return_url\\\` argument is required unless passing \\\`redirect: 'if_required'\\\`");
    var clientSecret = options.clientSecret || (elements && elements._clientSecret);
    if (!clientSecret) throw IntegrationError(caller + '(): the \\\`clientSecret\\\` argument is required when Elements were created without a clientSecret.');
    checkClientSecret(kind, clientSecret, caller);
    if (elements && elements._mode) {
      if ((kind === 'setup') !== (elements._mode === 'setup'))
        throw IntegrationError(caller + '(): elements were created with mode: ' + elements._mode + '. Use ' + (elements._mode === 'setup' ? 'stripe.confirmSetup' : 'stripe.confirmPayment') + ' instead.');
      if (!elements._submitted)
        throw IntegrationError('elements.submit() must be called before ' + caller + '(). Call elements.submit() as soon as your customer presses pay, prior to any asynchronous work. Integration guide: https://stripe.com/docs/payments/accept-a-payment-deferred');
    }
    var element = elements && elements._element;
    if (!confirmParams.payment_method && !(element && element._mounted))
      throw IntegrationError(caller + '(): expected either \\\`elements\\\` with a mounted Payment Element or \\\`confirmParams.payment_method\\\`.');
    if (elements) elements._submitted = false;

    var checked = Promise.resolve(null);
    if (elements && elements._mode) {
      // A deferred intent must match what the Elements were created with, as Stripe checks.
      checked = retrieve(stripe, kind, clientSecret).then(function (intent) {
        if (intent.error) return intent;
        var o = elements._options;
        var mismatch = null;
        if (kind === 'payment' && o.currency && intent.currency !== String(o.currency).toLowerCase())
          mismatch = 'Your PaymentIntent currency (' + intent.currency + ') does not match the Elements currency (' + o.currency + ').';
        if (kind === 'payment' && (intent.setup_future_usage || null) !== (o.setupFutureUsage || null))
          mismatch = 'Your PaymentIntent setup_future_usage (' + intent.setup_future_usage + ') does not match the Elements setupFutureUsage (' + (o.setupFutureUsage || null) + ').';
        return mismatch ? { error: { type: 'invalid_request_error', code: 'intent_mismatch', message: mismatch } } : null;
      });
    }
    return checked
      .then(function (problem) {
        if (problem) return problem;
        if (confirmParams.payment_method) return { id: confirmParams.payment_method };
        var billing = confirmParams.payment_method_data && confirmParams.payment_method_data.billing_details;
        return element._call('createPaymentMethod', { billing_details: billing || null }).then(function (result) {
          return result.error ? { error: result.error } : result.paymentMethod;
        });
      })
      .then(function (pm) {
        if (pm.error) return { error: pm.error };
        var body = { client_secret: clientSecret, payment_method: pm.id, use_stripe_sdk: true, expand: ['payment_method'] };
        if (confirmParams.return_url) body.return_url = confirmParams.return_url;
        var path = (kind === 'payment' ? '/v1/payment_intents/' : '/v1/setup_intents/') + intentId(clientSecret) + '/confirm';
        return api(stripe._key, 'POST', path, body).then(function (intent) {
          if (intent.error) return { error: intent.error };
          return handleActions(stripe, kind, intent, clientSecret).then(function (settled) {
            if (settled.error) return { error: settled.error };
            return finish(kind, outcome(kind, settled), clientSecret, redirect, confirmParams.return_url);
          });
        });
      });
  }

  // ------------------------------------------------------------------ Stripe
  function Stripe(key, options) {
    if (!(this instanceof Stripe)) return new Stripe(key, options);
    if (typeof key !== 'string' || key === '') throw IntegrationError('Please call Stripe() with your publishable key. You used an empty string.');
    if (key.indexOf('sk_') === 0) throw IntegrationError('You should not use your secret key with Stripe.js. Please pass a publishable key instead.');
    if (key.indexOf('pk_') !== 0) throw IntegrationError('Invalid value for Stripe(): apiKey should be a publishable key. You specified: ' + key + '.');
    this._key = key;
    this._options = options || {};
  }
  Stripe.__standin = true;
  Stripe.prototype.elements = function (options) {
    return new Elements(this, options);
  };
  Stripe.prototype.confirmPayment = function (options) {
    return confirmIntent(this, 'payment', options);
  };
  Stripe.prototype.confirmSetup = function (options) {
    return confirmIntent(this, 'setup', options);
  };
  Stripe.prototype.handleNextAction = function (options) {
    var self = this;
    var clientSecret = options && options.clientSecret;
    var kind = String(clientSecret).indexOf('seti_') === 0 ? 'setup' : 'payment';
    checkClientSecret(kind, clientSecret, 'stripe.handleNextAction');
    return retrieve(this, kind, clientSecret).then(function (intent) {
      if (intent.error) return { error: intent.error };
      return handleActions(self, kind, intent, clientSecret).then(function (settled) {
        return settled.error ? { error: settled.error } : outcome(kind, settled);
      });
    });
  };
  Stripe.prototype.retrievePaymentIntent = function (clientSecret) {
    checkClientSecret('payment', clientSecret, 'stripe.retrievePaymentIntent');
    return retrieve(this, 'payment', clientSecret).then(function (intent) {
      return intent.error ? { error: intent.error } : { paymentIntent: intent };
    });
  };
  Stripe.prototype.retrieveSetupIntent = function (clientSecret) {
    checkClientSecret('setup', clientSecret, 'stripe.retrieveSetupIntent');
    return retrieve(this, 'setup', clientSecret).then(function (intent) {
      return intent.error ? { error: intent.error } : { setupIntent: intent };
    });
  };
  Stripe.prototype.createPaymentMethod = function (options) {
    var element = options && options.elements && options.elements._element;
    if (!element || !element._mounted) throw IntegrationError('stripe.createPaymentMethod(): expected \\\`elements\\\` with a mounted Payment Element.');
    var billing = options.params && options.params.billing_details;
    return element._call('createPaymentMethod', { billing_details: billing || null }).then(function (result) {
      return result.error ? { error: result.error } : { paymentMethod: result.paymentMethod };
    });
  };

  window.Stripe = Stripe;
})();
`;

/** The Payment Element's frame: the card fields, on the stand-in's origin; it creates the PaymentMethod itself. */
export const PAYMENT_ELEMENT_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Secure payment input</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  * { box-sizing: border-box; }
  html, body { margin: 0; padding: 0; background: transparent; }
  body { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Ubuntu, sans-serif; font-size: 15px; color: #30313d; padding: 2px 3px 4px; }
  .tab { display: inline-flex; align-items: center; gap: 8px; padding: 8px 12px; margin-bottom: 12px; border: 1px solid #0570de; border-radius: 5px; color: #0570de; font-weight: 600; font-size: 14px; box-shadow: 0 1px 1px rgba(0,0,0,.03), 0 3px 6px rgba(18,42,66,.02); }
  .tab svg { width: 20px; height: 14px; }
  .tabs { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 12px; }
  .tabs .tab { margin: 0; background: #fff; border-color: #e6e6e6; color: #30313d; font: inherit; font-size: 14px; font-weight: 600; cursor: pointer; }
  .tabs .tab[aria-selected="true"] { border-color: #0570de; color: #0570de; box-shadow: 0 0 0 1px #0570de; }
  .note { font-size: 12px; line-height: 1.4; color: #6d6e78; margin: 0 0 8px; }
  label { display: block; font-size: 14px; margin: 0 0 4px; color: #30313d; }
  .field { position: relative; margin-bottom: 12px; }
  input { width: 100%; font: inherit; font-size: 16px; padding: 10px 12px; border: 1px solid #e6e6e6; border-radius: 5px; background: #fff; color: #30313d; outline: none; box-shadow: 0 1px 1px rgba(0,0,0,.03), 0 3px 6px rgba(0,0,0,.02); }
  input::placeholder { color: #87898f; }
  input:focus { border-color: #0570de; box-shadow: 0 0 0 3px rgba(5,112,222,.25); }
  input[aria-invalid="true"] { border-color: #df1b41; color: #df1b41; box-shadow: 0 0 0 1px #df1b41; }
  .brand { position: absolute; inset-inline-end: 10px; bottom: 11px; font-size: 11px; font-weight: 700; letter-spacing: .04em; text-transform: uppercase; color: #6d6e78; }
  .row { display: flex; gap: 12px; }
  .row .field { flex: 1; }
  .error { color: #df1b41; font-size: 14px; margin: -6px 0 10px; min-height: 0; }
  .error:empty { display: none; }
</style>
</head>
<body>
<form id="form" novalidate autocomplete="on">
  <div class="tabs" role="tablist" aria-label="Payment method" id="tabs"></div>
  <div id="pane-other" hidden>
    <p class="note" id="other-note"></p>
  </div>
  <div id="pane-sepa_debit" hidden>
    <div class="field"><label for="sepa-name">Full name</label><input id="sepa-name" autocomplete="name" aria-describedby="sepa-error"></div>
    <div class="field"><label for="sepa-email">Email</label><input id="sepa-email" type="email" autocomplete="email" aria-describedby="sepa-error"></div>
    <div class="field"><label for="iban">IBAN</label><input id="iban" dir="ltr" placeholder="DE00 0000 0000 0000 0000 00" autocomplete="off" spellcheck="false" aria-describedby="sepa-error"></div>
    <p class="error" id="sepa-error" role="alert"></p>
    <p class="note">By providing your payment information and confirming this payment, you authorise the seller and Stripe, our payment service provider, to send instructions to your bank to debit your account in accordance with those instructions.</p>
  </div>
  <div id="pane-card">
  <div class="field">
    <label for="number">Card number</label>
    <input id="number" name="cardnumber" autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234" aria-describedby="number-error" spellcheck="false">
    <span class="brand" id="brand" aria-hidden="true"></span>
  </div>
  <p class="error" id="number-error" role="alert"></p>
  <div class="row">
    <div>
      <div class="field">
        <label for="expiry">Expiration date</label>
        <input id="expiry" name="exp-date" autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY" aria-describedby="expiry-error" spellcheck="false">
      </div>
      <p class="error" id="expiry-error" role="alert"></p>
    </div>
    <div>
      <div class="field">
        <label for="cvc">Security code</label>
        <input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC" aria-describedby="cvc-error" spellcheck="false">
      </div>
      <p class="error" id="cvc-error" role="alert"></p>
    </div>
  </div>
  </div>
</form>
<script>
(function () {
  'use strict';
  var config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  var number = document.getElementById('number');
  var expiry = document.getElementById('expiry');
  var cvc = document.getElementById('cvc');
  var brandLabel = document.getElementById('brand');
  var touched = { number: false, expiry: false, cvc: false };
  var NAMES = { card: 'Card', link: 'Link', sepa_debit: 'SEPA Direct Debit', us_bank_account: 'US bank account', paypal: 'PayPal', eps: 'EPS' };
  var methods = config.methods && config.methods.length ? config.methods : ['card'];
  var chosen = 'card';
  var tabs = document.getElementById('tabs');
  function choose(type) {
    chosen = type;
    Array.prototype.forEach.call(tabs.children, function (tab) { tab.setAttribute('aria-selected', String(tab.dataset.type === type)); tab.tabIndex = tab.dataset.type === type ? 0 : -1; });
    document.getElementById('pane-card').hidden = type !== 'card';
    document.getElementById('pane-sepa_debit').hidden = type !== 'sepa_debit';
    document.getElementById('pane-other').hidden = type === 'card' || type === 'sepa_debit';
    document.getElementById('other-note').textContent = type === 'paypal' ? 'After you confirm, PayPal asks you to approve the payment.' : NAMES[type] + ' is offered here, but the Stripe stand-in cannot take it in a browser.';
    post({ type: 'change', complete: false, empty: true, value: { type: type } });
    resize();
  }
  methods.forEach(function (type) {
    var tab = document.createElement('button');
    tab.type = 'button';
    tab.className = 'tab';
    tab.setAttribute('role', 'tab');
    tab.dataset.type = type;
    tab.textContent = NAMES[type] || type;
    tab.addEventListener('click', function () { choose(type); });
    tabs.appendChild(tab);
  });

  function post(message) {
    message.standin = config.id;
    window.parent.postMessage(message, config.parentOrigin);
  }
  function digits(value) {
    return value.replace(/\\D/g, '');
  }
  function brandOf(d) {
    if (/^4/.test(d)) return 'visa';
    if (/^(5[1-5]|2[2-7])/.test(d)) return 'mastercard';
    if (/^3[47]/.test(d)) return 'amex';
    if (/^(6011|65|64[4-9])/.test(d)) return 'discover';
    if (/^35/.test(d)) return 'jcb';
    return '';
  }
  function luhn(d) {
    var sum = 0;
    for (var i = 0; i < d.length; i++) {
      var n = Number(d[d.length - 1 - i]);
      if (i % 2 === 1) { n *= 2; if (n > 9) n -= 9; }
      sum += n;
    }
    return sum % 10 === 0;
  }
  function numberLength(d) {
    return brandOf(d) === 'amex' ? 15 : 16;
  }
  function formatNumber() {
    var d = digits(number.value).slice(0, 19);
    var groups = brandOf(d) === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < groups.length && at < d.length; i++) { out.push(d.slice(at, at + groups[i])); at += groups[i]; }
    number.value = out.join(' ');
    brandLabel.textContent = brandOf(d);
  }
  function formatExpiry(deleting) {
    var d = digits(expiry.value).slice(0, 4);
    if (d.length === 1 && Number(d) > 1) d = '0' + d;
    expiry.value = d.length > 2 || (d.length === 2 && !deleting) ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
  }
  function formatCvc() {
    cvc.value = digits(cvc.value).slice(0, 4);
  }

  // Stripe.js's validation errors for the card fields.
  function numberError(final) {
    var d = digits(number.value);
    if (d.length === 0) return final ? { code: 'incomplete_number', message: 'Your card number is incomplete.' } : null;
    if (d.length < numberLength(d)) return final ? { code: 'incomplete_number', message: 'Your card number is incomplete.' } : null;
    if (!luhn(d)) return { code: 'invalid_number', message: 'Your card number is invalid.' };
    return null;
  }
  function expiryParts() {
    var d = digits(expiry.value);
    return { month: Number(d.slice(0, 2)), year: 2000 + Number(d.slice(2, 4)), length: d.length };
  }
  function expiryError(final) {
    var p = expiryParts();
    if (p.length < 4) return final || (p.length >= 2 && (p.month < 1 || p.month > 12)) ? (p.length >= 2 && (p.month < 1 || p.month > 12) ? { code: 'invalid_expiry_month', message: "Your card's expiration date is invalid." } : { code: 'incomplete_expiry', message: "Your card's expiration date is incomplete." }) : null;
    var now = new Date();
    if (p.month < 1 || p.month > 12) return { code: 'invalid_expiry_month', message: "Your card's expiration date is invalid." };
    if (p.year < now.getFullYear()) return { code: 'invalid_expiry_year_past', message: "Your card's expiration year is in the past." };
    if (p.year === now.getFullYear() && p.month < now.getMonth() + 1) return { code: 'invalid_expiry_month_past', message: "Your card's expiration date is in the past." };
    return null;
  }
  function cvcError(final) {
    var d = digits(cvc.value);
    var need = brandOf(digits(number.value)) === 'amex' ? 4 : 3;
    if (d.length < need) return final ? { code: 'incomplete_cvc', message: "Your card's security code is incomplete." } : null;
    return null;
  }
  var fields = [
    { input: number, error: numberError, name: 'number' },
    { input: expiry, error: expiryError, name: 'expiry' },
    { input: cvc, error: cvcError, name: 'cvc' },
  ];
  function show(field, error) {
    document.getElementById(field.name + '-error').textContent = error ? error.message : '';
    field.input.setAttribute('aria-invalid', error ? 'true' : 'false');
  }
  function validate(final) {
    var first = null;
    fields.forEach(function (field) {
      var error = field.error(final || touched[field.name]);
      var shown = field.input.getAttribute('aria-invalid') === 'true';
      if (final || touched[field.name] || shown || (error && error.code.indexOf('invalid') === 0)) show(field, error);
      if (error && !first) first = { type: 'validation_error', code: error.code, message: error.message };
    });
    return first;
  }
  function resize() {
    post({ type: 'resize', height: Math.ceil(document.documentElement.getBoundingClientRect().height) + 2 });
  }
  var last = '';
  function changed() {
    var error = validate(false);
    var complete = !fields.some(function (f) { return f.error(true); });
    var empty = !number.value && !expiry.value && !cvc.value;
    var state = JSON.stringify([complete, empty, error && error.code]);
    if (state !== last) {
      last = state;
      var message = { type: 'change', complete: complete, empty: empty };
      var shown = error && fields.some(function (f) { return touched[f.name] || error.code.indexOf('invalid') === 0; });
      if (shown) message.error = error;
      post(message);
    }
    resize();
  }

  number.addEventListener('input', function () { formatNumber(); changed(); });
  expiry.addEventListener('input', function (e) { formatExpiry(e.inputType && e.inputType.indexOf('delete') === 0); changed(); });
  cvc.addEventListener('input', function () { formatCvc(); changed(); });
  fields.forEach(function (field) {
    field.input.addEventListener('blur', function () { if (field.input.value) touched[field.name] = true; changed(); post({ type: 'blur' }); });
    field.input.addEventListener('focus', function () { post({ type: 'focus' }); });
  });
  document.getElementById('form').addEventListener('submit', function (e) { e.preventDefault(); });

  function encode(params) {
    var out = [];
    (function walk(value, name) {
      if (value === null || value === undefined || value === '') return;
      if (typeof value === 'object') Object.keys(value).forEach(function (k) { walk(value[k], name ? name + '[' + k + ']' : k); });
      else out.push(encodeURIComponent(name) + '=' + encodeURIComponent(String(value)));
    })(params, '');
    return out.join('&');
  }

  function otherParams(payload) {
    var billing = Object.assign({}, payload.billing_details || {});
    if (chosen === 'paypal') return { type: 'paypal', billing_details: billing };
    if (chosen !== 'sepa_debit') return { error: { type: 'validation_error', code: 'unsupported', message: NAMES[chosen] + ' cannot be used in the Stripe stand-in.' } };
    billing.name = document.getElementById('sepa-name').value.trim();
    billing.email = document.getElementById('sepa-email').value.trim();
    var iban = document.getElementById('iban').value.replace(/\\s/g, '');
    if (!billing.name || !billing.email || !iban) return { error: { type: 'validation_error', code: 'incomplete', message: 'Please fill in your name, email and IBAN.' } };
    return { type: 'sepa_debit', sepa_debit: { iban: iban }, billing_details: billing };
  }
  function createPaymentMethod(payload) {
    if (chosen !== 'card') {
      var other = otherParams(payload);
      document.getElementById('sepa-error').textContent = other.error ? other.error.message : '';
      return other.error ? Promise.resolve({ error: other.error }) : send(other);
    }
    var error = validate(true);
    resize();
    if (error) return Promise.resolve({ error: error });
    var p = expiryParts();
    var params = { type: 'card', card: { number: digits(number.value), exp_month: p.month, exp_year: p.year, cvc: digits(cvc.value) } };
    if (payload.billing_details) params.billing_details = payload.billing_details;
    return send(params);
  }
  function send(params) {
    return fetch('/v1/payment_methods', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + config.key, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encode(params),
    })
      .then(function (response) { return response.json(); })
      .then(function (json) {
        if (json.error) {
          if (json.error.param === 'card[number]') show(fields[0], json.error);
          return { error: json.error };
        }
        return { paymentMethod: json };
      }, function () {
        return { error: { type: 'api_connection_error', message: 'We could not connect to Stripe.' } };
      });
  }

  window.addEventListener('message', function (event) {
    if (event.origin !== config.parentOrigin || event.source !== window.parent) return;
    var m = event.data;
    if (!m || m.standin !== config.id) return;
    function reply(result) { post({ type: 'reply', seq: m.seq, result: result }); }
    if (m.type === 'submit') { var error = chosen === 'card' ? validate(true) : otherParams({}).error; resize(); reply(error ? { error: error } : {}); }
    else if (m.type === 'createPaymentMethod') createPaymentMethod(m.payload || {}).then(reply);
    else if (m.type === 'clear') { number.value = expiry.value = cvc.value = ''; touched = { number: false, expiry: false, cvc: false }; fields.forEach(function (f) { show(f, null); }); changed(); reply({}); }
    else if (m.type === 'focus') { number.focus(); reply({}); }
    else if (m.type === 'blur') { document.activeElement && document.activeElement.blur(); reply({}); }
  });

  // Stripe's element mirrors for right-to-left languages.
  if (/^(ar|he)\\b/.test(config.locale)) document.documentElement.dir = 'rtl';
  choose('card');
  post({ type: 'ready' });
  resize();
})();
</script>
</body>
</html>
`;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Stripe's 3-D Secure test page, stand-in version: the customer completes or fails the authentication. */
export function challengeHtml(details: { what: string; amount: string | null; card: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>3D Secure 2 Test Page</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { margin: 0; font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; color: #1a1f36; background: #fff; }
  main { padding: 28px 28px 24px; }
  .bank { font-weight: 700; letter-spacing: .02em; color: #425466; font-size: 13px; text-transform: uppercase; }
  h1 { font-size: 20px; margin: 14px 0 8px; }
  p { font-size: 14px; line-height: 1.5; color: #425466; margin: 0 0 10px; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 6px 14px; font-size: 14px; margin: 16px 0 22px; }
  dt { color: #697386; }
  dd { margin: 0; font-weight: 600; }
  button { display: block; width: 100%; font: inherit; font-size: 15px; font-weight: 600; padding: 11px 14px; border-radius: 6px; border: 1px solid transparent; cursor: pointer; margin-bottom: 10px; }
  #complete { background: #635bff; color: #fff; }
  #fail { background: #fff; color: #df1b41; border-color: #e3e8ee; }
  button:disabled { opacity: .6; cursor: default; }
  #status { font-size: 14px; color: #425466; min-height: 1em; }
</style>
</head>
<body>
<main>
  <div class="bank">Test bank · Stripe stand-in</div>
  <h1>3D Secure 2 Test Page</h1>
  <p>This is a test authentication for ${escapeHtml(details.what)}. Complete it to approve, or fail it to see how the payment is declined.</p>
  <dl>
    ${details.amount ? `<dt>Amount</dt><dd>${escapeHtml(details.amount)}</dd>` : ''}
    <dt>Card</dt><dd>${escapeHtml(details.card)}</dd>
  </dl>
  <button id="complete" type="button">Complete authentication</button>
  <button id="fail" type="button">Fail authentication</button>
  <p id="status" role="status"></p>
</main>
<script>
(function () {
  var buttons = [document.getElementById('complete'), document.getElementById('fail')];
  function send(action) {
    buttons.forEach(function (b) { b.disabled = true; });
    document.getElementById('status').textContent = 'Processing…';
    fetch(location.pathname, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=' + action })
      .then(function (r) { return r.json(); })
      .then(function (result) {
        if (window.parent !== window) window.parent.postMessage({ type: 'standin-3ds-done', status: result.status }, '*');
        else if (result.redirect) location.assign(result.redirect);
        else document.getElementById('status').textContent = 'Done: ' + result.status + '. You can close this window.';
      });
  }
  buttons[0].addEventListener('click', function () { send('complete'); });
  buttons[1].addEventListener('click', function () { send('fail'); });
})();
</script>
</body>
</html>
`;
}
