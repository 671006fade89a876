import type { FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import { BusinessDetailsError } from '../../../domain/checkout/index.ts';
import type { EnvironmentContext } from '../../http-app.ts';
import type { FormBody } from '../form-body.ts';
import { openLink, type Visit } from './manage-link.ts';
import { showForm } from './manage-purchases.ts';
import { afterAuthentication, afterCardSession, done, refused, render } from './manage-render.ts';
import { buyerTranslator } from '../buyer-language.ts';
import { sendManageProblem } from './manage-speech.ts';
import { changeSeatsAction } from './manage-seats-action.ts';

/** What a business detail refused says, by its field, in the customer's language. */
const BILLING_FIELDS: Record<BusinessDetailsError['field'], string> = {
  vatId: 'manage.billingVatInvalid',
  businessName: 'manage.billingCompanyNeeded',
  buyerAddress: 'manage.billingAddressNeeded',
};

/**
 * `POST /manage/{token}`: a form of the page, with the page's form token. Cancel (when, why), the
 * billing details, a plan switch, a new card typed in the page's own form, or what came of the
 * processor's element: a card session to finish, a renewal the customer confirmed with the bank.
 * Each is safe to send twice: a second cancel or switch changes nothing and lands on the same notice.
 */
export async function actOnPurchase(
  context: EnvironmentContext,
  reply: FastifyReply,
  token: string,
  body: FormBody | undefined,
) {
  const { services } = context;
  const opened = openLink(context, reply, token);
  if ('reply' in opened) return opened.reply;
  const { scope, email } = opened;
  const visit = { token, scope, email };
  const form = (body ?? {}) as FormBody;
  if (!services.links.formTokenMatches(token, form.formToken ?? '')) {
    return sendManageProblem(reply, buyerTranslator(reply.request), 403, 'formExpiredTitle', 'formExpiredText');
  }
  const id = form.transactionId ?? '';
  try {
    if (form.action === 'cancel') {
      await services.portal.cancel(scope, email, id, { now: form.when === 'now', reason: form.reason ?? null });
      return done(reply, 'cancelled');
    }
    if (form.action === 'billing') return await saveBilling(context, reply, visit, id, form);
    if (form.action === 'switch') {
      const result = await services.portal.switchPlan(scope, email, id, form.productId ?? '');
      if (result.status !== 'PAID') return render(context, reply, visit, 409, () => ({ error: result.message }));
      return done(reply, 'switched');
    }
    if (form.action === 'card') return await changeCard(context, reply, visit, id, form);
    if (form.action === 'pause' || form.action === 'resume') {
      const pauses = services.transactions.pauses;
      await (form.action === 'pause' ? pauses.pauseOwn(scope, email, id) : pauses.resumeOwn(scope, email, id));
      return done(reply, form.action === 'pause' ? 'paused' : 'resumed');
    }
    if (form.action === 'seats') return await changeSeatsAction(context, reply, visit, form);
    if (form.action === 'free-instance') {
      await services.portal.freeInstance(scope, email, id, form.instanceId ?? '');
      return done(reply, 'instance-freed');
    }
    if (form.action === 'card-complete') {
      const cardSession = form.cardSession ?? '';
      // Without JavaScript the processor's card field never appeared, so there is no session to finish.
      if (!cardSession) return render(context, reply, visit, 400, (tr) => ({ error: tr.t('manage.cardNeedsScript') }));
      const outcome = await services.portal.completeCardSession(scope, email, id, cardSession);
      return afterCardSession(context, reply, visit, id, cardSession, outcome);
    }
    if (form.action === 'authenticated') {
      return afterAuthentication(context, reply, visit, id, await services.portal.authenticated(scope, email, id));
    }
    return render(context, reply, visit, 400, (tr) => ({ error: tr.t('manage.unknownAction') }));
  } catch (err) {
    return refused(context, reply, visit, err);
  }
}

/** The billing form: saved and back to the page, or shown again with what was typed and what is wrong. */
async function saveBilling(context: EnvironmentContext, reply: FastifyReply, visit: Visit, id: string, form: FormBody) {
  const typed = { name: form.name, company: form.company, address: form.address, vatId: form.vatId };
  try {
    const change = await context.services.portal.editBilling(visit.scope, visit.email, id, typed);
    return done(reply, change.reverseCharge ? `reverse-charge-${change.reverseCharge.toLowerCase()}` : 'billing');
  } catch (err) {
    if (!(err instanceof BusinessDetailsError)) throw err;
    const errorKey = BILLING_FIELDS[err.field];
    return showForm(context, reply, visit, 'billing', id, { status: 400, errorKey, typed, field: err.field });
  }
}

/** A new card typed in the page's own form (a processor that takes cards on the server). */
async function changeCard(context: EnvironmentContext, reply: FastifyReply, visit: Visit, id: string, form: FormBody) {
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.cardExpiry ?? '');
  if (!expiry) throw new AppError('INVALID_INPUT', 'Enter the card expiry as MM/YY.');
  if (!/^\d{3,4}$/.test((form.cardCvc ?? '').trim()))
    throw new AppError('INVALID_INPUT', 'Enter the 3 or 4 digit security code (CVC) of the card.');
  const result = await context.services.portal.updateCard(visit.scope, visit.email, id, {
    number: (form.cardNumber ?? '').replace(/[\s-]/g, ''),
    expMonth: Number(expiry[1]),
    expYear: Number(expiry[2]),
    cvc: form.cardCvc,
  });
  if (result.status === 'DECLINED')
    return render(context, reply, visit, 402, (tr) => ({
      error: tr.t('manage.cardDeclined', { reason: result.message }),
    }));
  return done(reply, 'card');
}
