/**
 * Xero's account types and the class each belongs to, the sandbox's own table. Xero's OpenAPI lists the types
 * (`#/components/schemas/AccountType`) and the classes (`Account.Class`, read-only: Xero derives it from the
 * type); which class a type falls in is Xero's "Account Types" documentation. The app keeps a table of its
 * own: the sandbox shares none with it, so a misreading of Xero on either side shows instead of hiding.
 */
export type AccountType =
  | 'BANK'
  | 'CURRENT'
  | 'CURRLIAB'
  | 'DEPRECIATN'
  | 'DIRECTCOSTS'
  | 'EQUITY'
  | 'EXPENSE'
  | 'FIXED'
  | 'INVENTORY'
  | 'LIABILITY'
  | 'NONCURRENT'
  | 'OTHERINCOME'
  | 'OVERHEADS'
  | 'PREPAYMENT'
  | 'REVENUE'
  | 'SALES'
  | 'TERMLIAB'
  | 'PAYG';

export type AccountClass = 'ASSET' | 'EQUITY' | 'EXPENSE' | 'LIABILITY' | 'REVENUE';

export const ACCOUNT_CLASS_BY_TYPE: Readonly<Record<AccountType, AccountClass>> = {
  // Assets: bank, current, fixed, inventory, non-current and prepayment.
  BANK: 'ASSET',
  CURRENT: 'ASSET',
  FIXED: 'ASSET',
  INVENTORY: 'ASSET',
  NONCURRENT: 'ASSET',
  PREPAYMENT: 'ASSET',
  // Liabilities: current, long-term (TERMLIAB), other, and PAYG withholding.
  CURRLIAB: 'LIABILITY',
  LIABILITY: 'LIABILITY',
  TERMLIAB: 'LIABILITY',
  PAYG: 'LIABILITY',
  EQUITY: 'EQUITY',
  // Expenses: direct costs, depreciation, expense and overheads.
  DEPRECIATN: 'EXPENSE',
  DIRECTCOSTS: 'EXPENSE',
  EXPENSE: 'EXPENSE',
  OVERHEADS: 'EXPENSE',
  // Revenue: revenue, sales and other income.
  OTHERINCOME: 'REVENUE',
  REVENUE: 'REVENUE',
  SALES: 'REVENUE',
};
