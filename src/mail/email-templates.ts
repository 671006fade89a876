import type { ComposedEmail, EmailView } from '../domain/notifications/index.ts';
import type { CustomerEmailKind } from '../domain/model.ts';
import { ratePercent } from '../domain/money/index.ts';
import { resolveLocale, translator, type Translator } from '../i18n/index.ts';
import { taxLabel } from '../documents/tax-label.ts';
import { renderEmail, type Block, type Written } from './email-html.ts';

/**
 * The customer e-mails' words, in the buyer's language (docs/decisions.md §35): the transaction's
 * stored locale, English when it has none. Each kind is written once, as blocks (a paragraph, amount
 * rows, a licence key, a button), and rendered twice: HTML for mail clients (tables and inline styles,
 * the markup they all read; dir="rtl" for Arabic and Hebrew) and plain text. Every kind ends with the
 * management link. Dates are read in UTC.
 */
/** What a template reads: the view, its translator and its dates and amounts in the buyer's form. */
interface Context {
  v: EmailView;
  tr: Translator;
  /** The view's date, long form ("3 December 2026"). */
  date: string;
  /** The view's total, or '' without amounts. */
  amount: string;
}

function amountRows({ v, tr }: Context): Block[] {
  const a = v.amounts;
  if (!a) return [];
  const money = (minor: number) => tr.money(minor, a.currency);
  const rows: [string, string, boolean?][] = [[tr.t('email.rowProduct'), v.product]];
  if (a.netMinor !== null) rows.push([tr.t('email.rowPrice'), money(a.netMinor)]);
  if (a.taxMinor !== null)
    rows.push([
      `${taxLabel(tr, a.taxName)}${a.taxRate !== null ? ` ${ratePercent(a.taxRate)}` : ''}`,
      money(a.taxMinor),
    ]);
  rows.push([tr.t('email.rowTotal'), money(a.totalMinor), true]);
  return [{ rows }];
}

const button = (c: Context, key: string): Block => ({ button: { label: c.tr.t(`email.${key}`), url: c.v.manageUrl } });
const document = (c: Context, key: string): Block[] =>
  c.v.documentUrl ? [{ link: { label: c.tr.t(`email.${key}`), url: c.v.documentUrl } }] : [];
const licence = ({ v, tr }: Context): Block[] =>
  v.licenceKey ? [{ code: { label: tr.t('email.licenceKey'), value: v.licenceKey } }] : [];
const p = (text: string): Block => ({ p: text });

/** A trial's receipt: what it costs after the trial in the checkout's own words (common.trialThen). */
function trialReceipt(c: Context): Written {
  const { v, tr } = c;
  const then =
    v.date && v.recurring && v.frequency !== 'UNKNOWN'
      ? [
          p(
            tr.t('common.trialThen', {
              price: tr.money(v.recurring.totalMinor, v.recurring.currency),
              every: tr.t('common.every', { frequency: v.frequency }),
              date: c.date,
            }),
          ),
        ]
      : [];
  return {
    subject: tr.t('email.trialSubject', { product: v.product }),
    heading: tr.t('email.trialHeading'),
    blocks: [
      p(tr.t('email.trialThanks', { product: v.product, vendor: v.vendor.name })),
      ...then,
      ...(v.date ? [p(tr.t('email.trialCancel', { date: c.date }))] : []),
      ...licence(c),
      button(c, 'managePurchases'),
    ],
  };
}

function receipt(c: Context): Written {
  const { v, tr } = c;
  if (v.trial) return trialReceipt(c);
  const price = v.recurring ?? v.amounts;
  const what =
    v.frequency !== 'UNKNOWN' && price
      ? tr.t('email.receiptSubscription', {
          product: v.product,
          plan: tr.t('common.recurringPrice', {
            price: tr.money(price.totalMinor, price.currency),
            every: tr.t('common.every', { frequency: v.frequency }),
          }),
        })
      : tr.t('email.receiptOneTime', { product: v.product });
  return {
    subject: tr.t('email.receiptSubject', { vendor: v.vendor.name }),
    heading: tr.t('email.receiptHeading'),
    blocks: [p(what), ...amountRows(c), ...licence(c), ...document(c, 'downloadInvoice'), button(c, 'managePurchases')],
  };
}

/** A failed renewal that will be tried again (a date), or the last one, which ended the subscription. */
function paymentFailed(c: Context): Written {
  const { v, tr } = c;
  const product = v.product;
  if (v.date)
    return {
      subject: tr.t('email.failedSubject', { product }),
      heading: tr.t('email.failedHeading'),
      blocks: [
        p(tr.t('email.failedText', { product, amount: c.amount })),
        p(tr.t('email.failedRetry', { date: c.date })),
        button(c, 'updateCard'),
      ],
    };
  return {
    subject: tr.t('email.endedSubject', { product }),
    heading: tr.t('email.endedHeading'),
    blocks: [
      p(tr.t('email.endedText', { product, amount: c.amount })),
      p(tr.t('email.endedAgain', { vendor: v.vendor.name })),
      button(c, 'seePurchases'),
    ],
  };
}

/** A notice before money moves: the subject and text speak of the date; keeping it needs nothing. */
const notice =
  (prefix: 'trialEnding' | 'renewal') =>
  (c: Context): Written => ({
    subject: c.tr.t(`email.${prefix}Subject`, { product: c.v.product, date: c.date }),
    heading: c.tr.t(`email.${prefix}Heading`),
    blocks: [
      p(c.tr.t(`email.${prefix}Text`, { product: c.v.product, date: c.date })),
      p(c.tr.t(`email.${prefix}Keep`)),
      button(c, 'manageSubscription'),
    ],
  });

const WRITE: Record<CustomerEmailKind, (c: Context) => Written> = {
  RECEIPT: receipt,
  TRIAL_ENDING: notice('trialEnding'),
  RENEWAL_UPCOMING: notice('renewal'),
  RENEWED: (c) => ({
    subject: c.tr.t('email.renewedSubject', { product: c.v.product }),
    heading: c.tr.t('email.renewedHeading'),
    blocks: [
      p(c.tr.t('email.renewedText', { product: c.v.product })),
      ...amountRows(c),
      ...document(c, 'downloadInvoice'),
      button(c, 'managePurchases'),
    ],
  }),
  PAYMENT_FAILED: paymentFailed,
  ACTION_REQUIRED: (c) => ({
    subject: c.tr.t('email.actionSubject', { product: c.v.product }),
    heading: c.tr.t('email.actionHeading'),
    blocks: [
      p(c.tr.t('email.actionText', { product: c.v.product, amount: c.amount })),
      button(c, 'confirmPayment'),
      ...(c.v.date ? [p(c.tr.t('email.actionRetry', { date: c.date }))] : []),
    ],
  }),
  CANCELLED: (c) => ({
    subject: c.tr.t('email.cancelledSubject', { product: c.v.product }),
    heading: c.tr.t('email.cancelledHeading'),
    blocks: [
      p(c.tr.t('email.cancelledText', { product: c.v.product })),
      p(c.v.date ? c.tr.t('email.cancelledAccess', { date: c.date }) : c.tr.t('email.cancelledNow')),
      button(c, 'seePurchases'),
    ],
  }),
  REFUNDED: (c) => ({
    subject: c.tr.t('email.refundSubject', { product: c.v.product }),
    heading: c.tr.t('email.refundHeading'),
    blocks: [
      p(c.tr.t('email.refundText', { vendor: c.v.vendor.name, amount: c.amount, product: c.v.product })),
      ...amountRows(c),
      ...document(c, 'downloadCreditNote'),
      button(c, 'seePurchases'),
    ],
  }),
  // The new key, and that the old one no longer works (docs/decisions.md §40).
  LICENCE_REISSUED: (c) => ({
    subject: c.tr.t('email.licenceReissuedSubject', { product: c.v.product }),
    heading: c.tr.t('email.licenceReissuedHeading'),
    blocks: [
      p(c.tr.t('email.licenceReissuedText', { vendor: c.v.vendor.name, product: c.v.product })),
      ...licence(c),
      p(c.tr.t('email.licenceReissuedActivate')),
      button(c, 'managePurchases'),
    ],
  }),
};

/** The e-mail of a view, in its buyer's language: subject, HTML and plain text from the one template of its kind. */
export function composeEmail(view: EmailView): ComposedEmail {
  const tr = translator(resolveLocale([view.locale]));
  const context: Context = {
    v: view,
    tr,
    date: view.date ? tr.date(view.date) : '',
    amount: view.amounts ? tr.money(view.amounts.totalMinor, view.amounts.currency) : '',
  };
  return renderEmail(view, tr, WRITE[view.kind](context));
}
