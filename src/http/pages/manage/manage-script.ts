/** JSON inside <script>: no "</script>" or line separators can end the script early. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The management page's script with a processor that takes cards in the browser (Stripe.js's calls).
 * - "Confirm the payment" of a renewal the bank holds: asks opentill for the payment's client secret,
 *   lets the processor run the bank's check in its own frame (`confirmPayment`), then posts the page's
 *   form (`authenticated`), and opentill asks the processor whether it is paid.
 * - "Change the card": the processor's element in setup mode, mounted when the section is opened; Save
 *   starts a setup session at opentill, confirms it in the element (`confirmSetup`), then posts the
 *   form with the session's signed token (`card-complete`). The card goes to the processor only.
 * Should the processor send the customer away to finish (a redirect method), its return URL carries
 * the same outcome back to the page. Without this script the buttons stay disabled and the page says
 * the card field needs JavaScript.
 */
export const MANAGE_PROCESSOR_SCRIPT = (c: { publicKey: string; authenticationUrl: string; cardSessionUrl: string }) =>
  `(function(){var c=${scriptJson(c)};if(typeof Stripe!=='function')return;var stripe=Stripe(c.publicKey);
var each=function(s,f){Array.prototype.forEach.call(document.querySelectorAll(s),f);};
function field(form,name){return form.querySelector('input[name="'+name+'"]');}
function back(q){return location.origin+location.pathname+'?'+new URLSearchParams(q).toString();}
function ask(url,form){return fetch(url,{method:'POST',headers:{'content-type':'application/x-www-form-urlencoded'},
body:new URLSearchParams({formToken:field(form,'formToken').value,transactionId:field(form,'transactionId').value})}).then(function(res){
return res.json().catch(function(){return{};}).then(function(j){if(!res.ok)throw{message:j.message||'Something went wrong; reload the page and try again.'};return j;});});}
function show(el,m){el.textContent=m;el.hidden=false;}
each('form[data-confirm-payment]',function(form){var btn=form.querySelector('button'),err=form.querySelector('.confirm-error'),id=field(form,'transactionId').value;btn.disabled=false;
form.addEventListener('submit',function(e){e.preventDefault();if(btn.disabled)return;btn.disabled=true;err.hidden=true;
ask(c.authenticationUrl,form).then(function(j){var p={return_url:back({confirmed:id})};if(j.paymentMethod)p.payment_method=j.paymentMethod;
return stripe.confirmPayment({clientSecret:j.clientSecret,confirmParams:p,redirect:'if_required'});
}).then(function(r){if(r.error)throw r.error;form.submit();}).catch(function(e){show(err,(e&&e.message)||'The payment was not confirmed; try again.');btn.disabled=false;});});});
each('form[data-card-change]',function(form){var btn=form.querySelector('button'),err=form.querySelector('.card-error'),id=field(form,'transactionId').value,
details=form.closest('details'),elements=null,started=null;
function mount(){if(elements)return;elements=stripe.elements({mode:'setup',currency:form.getAttribute('data-currency')});
elements.create('payment').mount(form.querySelector('[data-card-element]'));btn.disabled=false;}
if(!details||details.open)mount();else details.addEventListener('toggle',function(){if(details.open)mount();});
form.addEventListener('submit',function(e){e.preventDefault();if(btn.disabled||!elements)return;btn.disabled=true;err.hidden=true;
elements.submit().then(function(r){if(r.error)throw r.error;return started||ask(c.cardSessionUrl,form).then(function(j){started=j;return j;});
}).then(function(j){return stripe.confirmSetup({elements:elements,clientSecret:j.clientSecret,confirmParams:{return_url:back({transactionId:id,cardSession:j.cardSession})},redirect:'if_required'}).then(function(r){
if(r.error)throw r.error;field(form,'cardSession').value=j.cardSession;form.submit();});
}).catch(function(e){show(err,(e&&e.message)||'The card was not saved; try again.');btn.disabled=false;});});});})();`;
