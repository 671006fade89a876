import type { Offer } from '../../../domain/catalog/index.ts';
import { FIELD_MESSAGES } from './checkout-views.ts';

// The checkout's inline scripts: the form's own, the processor's card element, and the overlay's messages to its parent.

/** JSON inside <script>: no "</script>" or line separators can end the script early. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Inside the widget's iframe: tell the parent page, and only at the announced origin, what happened; let the customer close. */
export const EMBED_SCRIPT = (
  origin: string,
  message: object | null,
) => `(function(){var p=window.parent,o=${scriptJson(origin)};if(p===window)return;
function send(m){p.postMessage(Object.assign({source:'opentill'},m),o)}
send({type:'ready'});${message ? `send(${scriptJson(message)});` : ''}
var c=document.getElementById('close');if(c)c.addEventListener('click',function(){send({type:'close'})});
document.addEventListener('keydown',function(e){if(e.key==='Escape')send({type:'close'})});})();`;

/**
 * The form's own script: the price, tax and total follow the country, ZIP code and coupon (asked of
 * the quote endpoint, the one pricing function), and so do the hidden expected total and, through the
 * `opentill:quote` event, the processor's card element; a Pay pressed while a new price is on its way
 * waits for it. Every invalid field is marked at once (`aria-invalid`, a message it is described by) and
 * the first one focused. The card number is spaced in groups of four and its brand shown.
 */
export const CHECKOUT_SCRIPT = `(function(){var f=document.getElementById('checkout');if(!f||!f.getAttribute('data-quote'))return;
var c={quoteUrl:f.getAttribute('data-quote'),country:f.getAttribute('data-country')},m=${scriptJson(FIELD_MESSAGES)};
var box=document.getElementById('price'),pay=document.getElementById('pay'),pending=null,seq=0;
function el(n){return f.elements.namedItem(n)}function v(n){var e=el(n);return e&&e.value?e.value.trim():''}
function sel(){var e=el('country');return e&&e.tagName==='SELECT'?e:null}
function mark(n,t){var e=el(n);if(!e)return;var id=n+'-error',p=document.getElementById(id);
if(t){if(!p){p=document.createElement('p');p.className='field-error';p.id=id;e.insertAdjacentElement('afterend',p);}p.textContent=t;e.setAttribute('aria-invalid','true');e.setAttribute('aria-describedby',id);}
else{if(p)p.remove();e.removeAttribute('aria-invalid');e.removeAttribute('aria-describedby');}}
function quote(e){var n=++seq,w=e&&e.target&&e.target.name||'zipCode',q=new URLSearchParams({zipCode:v('zipCode'),coupon:v('coupon'),vatId:v('vatId')});if(sel())q.set('country',sel().value);
var p=fetch(c.quoteUrl+'?'+q,{headers:{accept:'application/json'}}).then(function(r){return r.json()}).then(function(j){if(n!==seq)return;
if(j.error){mark(w,j.message);return;}mark('country','');mark('zipCode','');mark('coupon',j.couponError||'');mark('vatId',j.vatIdError||'');
box.innerHTML=j.html;el('expectedCurrency').value=j.currency;el('expectedTotal').value=String(j.totalMinor);el('appliedCoupon').value=j.coupon||'';pay.textContent=j.payLabel;
f.dispatchEvent(new CustomEvent('opentill:quote',{detail:j}));}).catch(function(){}).then(function(){if(pending===p)pending=null;});pending=p;}
['country','zipCode','coupon','vatId'].forEach(function(n){var e=el(n);if(e&&!e.readOnly)e.addEventListener('change',quote);});
var cp=el('coupon');if(cp)cp.addEventListener('keydown',function(e){if(e.key==='Enter'){e.preventDefault();quote(e);}});
function luhn(d){var s=0;for(var i=0;i<d.length;i++){var x=+d[d.length-1-i];if(i%2){x*=2;if(x>9)x-=9;}s+=x;}return s%10===0}
var cn=el('cardNumber'),br=document.getElementById('card-brand');
if(cn)cn.addEventListener('input',function(){var d=cn.value.replace(/\\D/g,'').slice(0,19);
if(cn.selectionStart===cn.value.length)cn.value=d.replace(/(\\d{4})(?=\\d)/g,'$1 ');
br.textContent=/^4/.test(d)?'Visa':/^(5[1-5]|2[2-7])/.test(d)?'Mastercard':/^3[47]/.test(d)?'American Express':/^6(011|5)/.test(d)?'Discover':'';});
function check(){var bad=[];function t(n,ok,msg){var e=el(n);if(!e||e.readOnly)return;if(ok!==null)mark(n,ok?'':msg);if(e.getAttribute('aria-invalid')==='true')bad.push(e);}
t('email',/^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/.test(v('email')),m.email);
t('country',null);t('zipCode',!v('zipCode')||(sel()?sel().value:c.country)!=='US'||/^\\d{5}(-?\\d{4})?$/.test(v('zipCode')),m.zipCode);
t('coupon',null);var d=v('cardNumber').replace(/[\\s-]/g,'');t('cardNumber',/^\\d{12,19}$/.test(d)&&luhn(d),m.cardNumber);
t('cardExpiry',/^(0?[1-9]|1[0-2])\\s*\\/\\s*(\\d{2}|\\d{4})$/.test(v('cardExpiry')),m.cardExpiry);t('cardCvc',/^\\d{3,4}$/.test(v('cardCvc')),m.cardCvc);
return bad[0]||null}
f.addEventListener('submit',function(e){if(pending){e.preventDefault();e.stopImmediatePropagation();pending.then(function(){f.requestSubmit();});return;}
var b=check();if(b){e.preventDefault();e.stopImmediatePropagation();b.focus();}});})();`;

/** Whether the offer charges nothing now: a trial, or a switch from another subscription. */
const inTrialOrSwitch = (offer: Offer) =>
  !!offer.customized?.transactionIdToMigrate || (offer.product.type === 'SUBSCRIPTION' && offer.product.trialDays > 0);

/** What the card element does: nothing due now (a trial, a free start, a switch, a vaulted method at zero) only saves the card. */
export function elementMode(needsCard: boolean, totalMinor: number, offer: Offer): 'payment' | 'setup' | 'none' {
  if (!needsCard) return 'none';
  return totalMinor > 0 && !inTrialOrSwitch(offer) ? 'payment' : 'setup';
}

/**
 * The processor's card element (Stripe's Payment Element; its script is the processor's, loaded by
 * URL): mounted with the amount priced here, it is confirmed against a session opentill starts on
 * Pay, for the amount opentill priced; 3-D Secure happens inside it. The card goes from the element
 * to the processor; opentill's page never holds it. After a decline the customer may try another
 * card in the same session; the details above are then fixed (reload the page to change them).
 */
export const PROCESSOR_SCRIPT = (c: {
  publicKey: string;
  mode: 'payment' | 'setup' | 'none';
  amount: number;
  currency: string;
  saveForLater: boolean;
  sessionUrl: string;
}) =>
  c.mode === 'none'
    ? ''
    : `(function(){var c=${scriptJson(c)};
var stripe=Stripe(c.publicKey);var o={mode:c.mode,currency:c.currency};if(c.mode==='payment'){o.amount=c.amount;if(c.saveForLater)o.setupFutureUsage='off_session';}
var elements=stripe.elements(o);elements.create('payment').mount('#payment-element');
var form=document.getElementById('checkout'),pay=document.getElementById('pay'),err=document.getElementById('card-error'),started=null;
form.addEventListener('opentill:quote',function(e){var q=e.detail,u={currency:q.currency.toLowerCase()};if(c.mode==='payment'&&q.totalMinor>0)u.amount=q.totalMinor;if(c.mode!=='payment'||u.amount)elements.update(u);});
function fail(m){err.textContent=m;err.hidden=false;pay.disabled=false;}
form.addEventListener('submit',function(e){
if(form.coupon&&form.coupon.value.trim().toUpperCase()!==form.appliedCoupon.value.toUpperCase())return;
e.preventDefault();if(pay.disabled)return;pay.disabled=true;err.hidden=true;
elements.submit().then(function(r){if(r.error)throw r.error;
return started||fetch(c.sessionUrl,{method:'POST',headers:{'content-type':'application/x-www-form-urlencoded'},body:new URLSearchParams(new FormData(form))}).then(function(res){
return res.json().catch(function(){return{}}).then(function(j){if(j.redirect){location.assign(j.redirect);return new Promise(function(){});}
if(!res.ok||!j.clientSecret)throw{message:j.message||'The payment could not be started; try again.'};
Array.prototype.forEach.call(form.querySelectorAll('input,select'),function(i){i.readOnly=true;});started=j;return j;});});
}).then(function(j){var a={elements:elements,clientSecret:j.clientSecret,confirmParams:{return_url:new URL(j.confirmUrl,location.href).href},redirect:'if_required'};
return (j.mode==='payment'?stripe.confirmPayment(a):stripe.confirmSetup(a)).then(function(r){if(r.error)throw r.error;location.assign(j.confirmUrl);});
}).catch(function(e){fail((e&&e.message)||'The payment did not go through; try again.');});});})();`;
