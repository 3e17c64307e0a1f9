/** Xero's account classes (docs/xero-api.md §4.4): read-only in Xero, they follow from the account's Type. */
type XeroAccountClass = 'ASSET' | 'EQUITY' | 'EXPENSE' | 'LIABILITY' | 'REVENUE';

/**
 * The class of each account type (docs/xero-api.md §4.4). The settings rules read it for a cached account
 * that came without one. The sandbox keeps its own table (src/sandbox/account-types.ts), as Xero would.
 */
export const XERO_ACCOUNT_CLASS_BY_TYPE: Readonly<Record<string, XeroAccountClass>> = {
  BANK: 'ASSET',
  CURRENT: 'ASSET',
  INVENTORY: 'ASSET',
  FIXED: 'ASSET',
  PREPAYMENT: 'ASSET',
  NONCURRENT: 'ASSET',
  REVENUE: 'REVENUE',
  SALES: 'REVENUE',
  OTHERINCOME: 'REVENUE',
  DIRECTCOSTS: 'EXPENSE',
  EXPENSE: 'EXPENSE',
  OVERHEADS: 'EXPENSE',
  DEPRECIATN: 'EXPENSE',
  CURRLIAB: 'LIABILITY',
  LIABILITY: 'LIABILITY',
  TERMLIAB: 'LIABILITY',
  EQUITY: 'EQUITY',
};
