import { Type, type Static, type TSchema } from 'typebox';
import { PauseInfo } from './routes/v1/pause-schemas.ts';

/**
 * The transaction's wire shapes (docs/decisions.md §8): every field with the description and the
 * example the API reference shows. Field names and presence are the original API's; only the words
 * are opentill's.
 */
const nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

const text = (description: string, example: unknown, options: object = {}) =>
  Type.String({ description, examples: [example], ...options });
const number = (description: string, example: number) => Type.Number({ description, examples: [example] });

const DATE_TIME = 'ISO-8601 UTC with milliseconds';
const STATUSES = [
  'TRANSACTION_STATUS_PENDING',
  'TRANSACTION_STATUS_REFUNDED',
  'ONE_TIME_PAYMENT_STATUS_PAID',
  'SUBSCRIPTION_STATUS_ACTIVE',
  'SUBSCRIPTION_STATUS_ACTIVE_TRIAL',
  'SUBSCRIPTION_STATUS_CANCELLED_PENDING',
  'SUBSCRIPTION_STATUS_CANCELLED',
  'VAULTED_STATUS_ACTIVE',
  'VAULTED_STATUS_INACTIVE',
];

const f = {
  id: text('The transaction id.', 'TC-TR_01JD3W7Q0B2C4D6E8F0G2H4J6K'),
  createDate: text(`When the transaction was created (${DATE_TIME}).`, '2026-11-27T10:15:30.123Z', {
    format: 'date-time',
  }),
  email: text('The e-mail the customer typed at checkout. Never changes.', 'buyer@example.com'),
  assignedEmail: nullable(
    text(
      'The e-mail you assigned (your sign-up e-mail for the customer); null until set. Once set it has priority over email everywhere.',
      'user-42@yourapp.example',
    ),
  ),
  assignEmail: nullable(
    text(
      'The assigned e-mail (the same value as assignedEmail, under the name update answers use).',
      'user-42@yourapp.example',
    ),
  ),
  productId: text('The product sold (`TC-PR_...`).', 'TC-PR_01JD3W6Y9F0R8M7Q2K5T4V6X8Z'),
  productName: text("The product's name when it was sold.", 'Acme Cloud Pro'),
  transactionType: Type.String({
    enum: ['ONETIME', 'SUBSCRIPTION', 'VAULTED'],
    description: 'A one-time payment, a subscription, or a saved card you charge with charge-vaulted.',
    examples: ['SUBSCRIPTION'],
  }),
  transactionStatus: Type.String({
    enum: STATUSES,
    description: 'Where the transaction stands (docs/decisions.md, the lifecycle of each type).',
    examples: ['SUBSCRIPTION_STATUS_ACTIVE'],
  }),
  chargeFrequency: nullable(
    text(
      "A subscription's period: DAILY, WEEKLY, MONTHLY, HALF_YEARLY or YEARLY; UNKNOWN for one-time and vaulted transactions.",
      'MONTHLY',
    ),
  ),
  country: text('Where the customer paid: ISO 3166-1 alpha-2 code.', 'DE'),
  lastCharge: nullable(
    text(`The last successful payment (${DATE_TIME}); null when none was taken (a trial).`, '2026-11-27T10:15:30.123Z'),
  ),
  nextCharge: Type.Optional(
    nullable(
      text(
        `The next payment due (${DATE_TIME}); null once nothing is due (cancelled, refunded). Absent for one-time transactions.`,
        '2026-12-27T10:15:30.123Z',
      ),
    ),
  ),
  payload: nullable(
    text('Your own data given before checkout, at most 4999 characters; null for none.', '{"userId":42}'),
  ),
  whoCanceled: nullable(
    text(
      'Who ended it: VENDOR, CUSTOMER, NEXT_CHARGE_FAILED (renewal failed after retries) or TRANSACTION_CLOUD_ADMIN (the platform, e.g. a chargeback); null while running.',
      null,
    ),
  ),
};

const amountFields = {
  netPrice: number('Net price (before tax) of the purchase, in currency.', 18.5),
  netPriceS: text("netPrice with exactly the currency's decimals.", '18.50'),
  netPriceInUSD: number('The net price in USD, converted at the rate of the day of the sale.', 20.07),
  netPriceInUSDS: text('netPriceInUSD with two decimals.', '20.07'),
  tax: number('Tax charged on the purchase, in currency.', 3.52),
  taxS: text("tax with exactly the currency's decimals.", '3.52'),
  currency: text('What the customer paid in: ISO 4217 code.', 'EUR'),
};

const headFields = { id: f.id, createDate: f.createDate, email: f.email };

/** opentill's own (docs/decisions.md §39): an addition a client of the seed ignores. */
const Quantity = Type.Integer({
  minimum: 1,
  description:
    "opentill's own: seats bought; 1 unless the product is sold per seat. netPrice and tax are for all of them.",
  examples: [1],
});

const commonFields = {
  productId: f.productId,
  productName: f.productName,
  transactionType: f.transactionType,
  transactionStatus: f.transactionStatus,
  chargeFrequency: f.chargeFrequency,
  country: f.country,
  lastCharge: f.lastCharge,
};

const tailFields = { payload: f.payload, whoCanceled: f.whoCanceled };

export const Entry = Type.Object(
  {
    id: text('The ledger entry id.', 'TC-EN_01JD3W7Q0B2C4D6E8F0G2H4J6M'),
    type: Type.String({
      description:
        'SUBSCRIPTION_PAYMENT, VAULTED_PAYMENT, ONETIME_PAYMENT, SUBSCRIPTION_REFUND, ONETIME_PAYMENT_REFUND or CHARGEBACK.',
      examples: ['SUBSCRIPTION_PAYMENT'],
    }),
    createDate: text(`When it was booked (${DATE_TIME}).`, '2026-11-27T10:15:30.123Z'),
    taxAmount: text('Tax of this entry, in currency; negative for money returned.', '3.52'),
    income: text(
      "Your income from this entry after the platform's and the processor's fees, in incomeCurrency.",
      '17.06',
    ),
    incomeCurrency: text('The currency of income (your payout currency).', 'EUR'),
    taxRate: text('The tax rate applied, as a decimal fraction.', '0.19'),
    currency: text('The currency of amountTotal and taxAmount.', 'EUR'),
    amountTotal: text('What the customer paid (or got back, negative), tax included, in currency.', '22.02'),
    affiliateIncome: text("An affiliate's share, in incomeCurrency (0.00: opentill has no affiliates).", '0.00'),
    affiliateIncomeCurrency: text('The currency of affiliateIncome.', 'EUR'),
  },
  { description: 'A ledger entry: a payment, refund or chargeback of the transaction. Entries are never changed.' },
);

export const ListedTransaction = Type.Object(
  {
    ...headFields,
    assignedEmail: f.assignedEmail,
    ...commonFields,
    nextCharge: f.nextCharge,
    ...tailFields,
    ...amountFields,
    quantity: Quantity,
    pause: Type.Optional(PauseInfo),
  },
  { description: 'A transaction as the by-e-mail list gives it.' },
);

export const TransactionWithEntries = Type.Object(
  {
    ...headFields,
    assignedEmail: f.assignedEmail,
    ...commonFields,
    ...tailFields,
    ...amountFields,
    quantity: Quantity,
    pause: Type.Optional(PauseInfo),
    entries: Type.Array(Entry, {
      description: 'Its ledger entries, oldest first.',
      examples: [
        [
          {
            id: 'TC-EN_01JD3W7Q0B2C4D6E8F0G2H4J6M',
            type: 'SUBSCRIPTION_PAYMENT',
            createDate: '2026-11-27T10:15:30.123Z',
            taxAmount: '3.52',
            income: '17.06',
            incomeCurrency: 'EUR',
            taxRate: '0.19',
            currency: 'EUR',
            amountTotal: '22.02',
            affiliateIncome: '0.00',
            affiliateIncomeCurrency: 'EUR',
          },
        ],
      ],
    }),
  },
  { description: 'A transaction with its ledger entries.' },
);

export const UpdatedTransaction = Type.Object(
  {
    ...headFields,
    assignEmail: f.assignEmail,
    ...commonFields,
    ...tailFields,
    ...amountFields,
  },
  { description: 'The transaction as changed (assignEmail instead of assignedEmail, as the original API answers).' },
);

const changeFlag = (also: string) =>
  nullable(
    text(
      `The latest change not yet marked processed: CHANGED_STATUS_NEW, _RENEWED, _CANCELLED, _REFUNDED, _TRIAL, _VAULTED_ACTIVATION or _VAULTED_DEACTIVATION. Equal to ${also} (both spellings are sent).`,
      'CHANGED_STATUS_RENEWED',
    ),
  );

export const ChangedTransaction = Type.Object(
  {
    assignEmail: nullable(text('The assigned e-mail; equal to assignedEmail (both spellings are sent).', null)),
    assignedEmail: nullable(text('The assigned e-mail; null until set.', null)),
    changeStatus: changeFlag('changedStatus'),
    changedStatus: changeFlag('changeStatus'),
    chargeFrequency: f.chargeFrequency,
    country: f.country,
    createDate: f.createDate,
    email: f.email,
    id: f.id,
    lastCharge: f.lastCharge,
    nextCharge: f.nextCharge,
    payload: f.payload,
    productId: f.productId,
    productName: f.productName,
    transactionStatus: f.transactionStatus,
    transactionType: f.transactionType,
    whoCanceled: f.whoCanceled,
  },
  { description: 'A transaction with a change you have not marked processed yet.' },
);

export const RefundRecord = Type.Object(
  {
    TCFee: number("The platform's fee given back with the refund, in currency.", 0.9),
    amountTotal: number('What the customer gets back, tax included, in currency.', 22.02),
    currency: text('The currency of the refund: that of the payment.', 'EUR'),
    externalId: text("The payment processor's id of the refund; empty in the sandbox.", 're_3QJ7x2LkdIwHu7ix0Xo9L1yZ'),
    hashId: text('The id of the refund document (its invoice).', 'TC-BA_01JD3W8H2N4P6R8T0V2X4Z6B8D'),
    id: text('The ledger entry id of the refund.', 'TC-EN_01JD3W8H2N4P6R8T0V2X4Z6B8C'),
    incomeCurrency: text('The currency of vendorIncome.', 'EUR'),
    invoiceLink: text('The refund document (PDF).', 'https://pay.example.com/invoice/TC-BA_01JD3W8H2N4P6R8T0V2X4Z6B8D'),
    paymentProvider: text('Who moved the money: SANDBOX or STRIPE.', 'STRIPE'),
    refundable: Type.Boolean({ description: 'Whether something of the payment is left to refund.', examples: [false] }),
    taxAmount: number('Tax given back, in currency.', 3.52),
    timestamp: Type.Integer({
      description: 'When it was refunded, milliseconds since the epoch.',
      examples: [1795774530123],
    }),
    transactionFee: number("The processor's fee of the refund, in currency.", 0),
    vendorIncome: number('What the refund takes from your income, in incomeCurrency.', 17.06),
    country: text("The customer's country: ISO 3166-1 alpha-2 code.", 'DE'),
  },
  { description: 'A refund, booked as a ledger entry.' },
);
