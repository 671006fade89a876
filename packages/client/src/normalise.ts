import type {
  ChangedTransaction,
  ChangeStatus,
  CustomizedProduct,
  LedgerEntry,
  Raw,
  RefundRecord,
  Transaction,
  TransactionWithEntries,
} from './model.ts';
import type {
  WireChangedTransaction,
  WireCustomizeResult,
  WireListedTransaction,
  WireRefundRecord,
  WireTransactionWithEntries,
  WireUpdatedTransaction,
} from './wire.ts';

/**
 * The answers' two spellings made one shape (docs/decisions.md §31). A field is read under each of its
 * names, the first that the answer has winning; the answer itself stays as `raw`.
 */
type Loose = Record<string, unknown>;

/** The first of `names` the object has (not undefined), else null. */
function either<T>(object: Loose, ...names: string[]): T | null {
  for (const name of names) if (object[name] !== undefined) return object[name] as T;
  return null;
}

/** The change flag: `changeStatus` or `changedStatus`; an empty string (a flag cleared on retrieval) is none. */
function changeFlag(object: Loose): ChangeStatus | null {
  const flag = either<string | null>(object, 'changeStatus', 'changedStatus');
  return flag === '' || flag === null ? null : (flag as ChangeStatus);
}

type AnyTransaction = WireListedTransaction | WireTransactionWithEntries | WireUpdatedTransaction;

export function transaction(raw: AnyTransaction): Transaction {
  const loose = raw as unknown as Loose;
  const { entries: _entries, assignEmail: _assign, ...rest } = loose;
  return {
    ...(rest as unknown as Omit<Transaction, 'raw'>),
    assignedEmail: either<string>(loose, 'assignedEmail', 'assignEmail'),
    raw,
  };
}

export function transactionWithEntries(raw: WireTransactionWithEntries): TransactionWithEntries {
  return { ...transaction(raw), entries: raw.entries.map((entry) => ({ ...entry }) as LedgerEntry), raw };
}

export function changedTransaction(raw: WireChangedTransaction): ChangedTransaction {
  const loose = raw as unknown as Loose;
  const { changedStatus: _changed, assignEmail: _assign, ...rest } = loose;
  return {
    ...(rest as unknown as Omit<ChangedTransaction, 'raw'>),
    changeStatus: changeFlag(loose),
    assignedEmail: either<string>(loose, 'assignedEmail', 'assignEmail'),
    raw,
  };
}

export function refundRecord(raw: WireRefundRecord): RefundRecord {
  const loose = raw as unknown as Loose;
  const { TCFee: _fee, ServiceFee: _service, ...rest } = loose;
  return {
    ...(rest as unknown as Omit<RefundRecord, 'raw' | 'platformFee'>),
    platformFee: either<number>(loose, 'TCFee', 'ServiceFee') ?? 0,
    raw,
  };
}

export function customizedProduct(raw: WireCustomizeResult): CustomizedProduct {
  const loose = raw as unknown as Loose;
  return {
    link: raw.link,
    customizedProductId: either<string>(loose, 'customizedProductId', 'customProductId') ?? '',
    raw,
  };
}

export const withRaw = <T extends object>(raw: T): Raw<T> => ({ ...raw, raw });
