/**
 * Which account, VAT rate or contact may serve as which organisation default (Settings), and the wording of a
 * refusal. Pure: the settings service (settings.service.ts) builds each reference list with these rules and
 * checks a saved choice against them (reference-checks.ts), so a list only offers what saving accepts.
 */
import {
  SETTING_FIELD_LABELS,
  type DefaultIdField,
  type SettingReferenceKind,
} from '../../../shared/settings';
import { XERO_ACCOUNT_CLASS_BY_TYPE } from '../../../shared/xero-accounts';
import { AppError } from '../../lib/app-error';
import type { AccountRow, ContactRow, TaxRateRow } from './settings.repository';

export type AccountKind = Extract<
  SettingReferenceKind,
  'credit-card-account' | 'cash-account' | 'sales-account' | 'bill-account' | 'stock-account' | 'cost-account'
>;
export type VatRateKind = Extract<SettingReferenceKind, 'sales-vat-rate' | 'bill-vat-rate'>;

/** Account types a bill line or the cost side of a stock journal may use (docs/xero-api.md §4.4 pickers). */
const COST_TYPES = new Set(['DIRECTCOSTS', 'EXPENSE', 'OVERHEADS']);

type AccountFacts = Pick<
  AccountRow,
  'name' | 'type' | 'class' | 'status' | 'bankAccountType' | 'systemAccount'
>;

function getAccountClass(account: AccountFacts): string | null {
  return account.class ?? XERO_ACCOUNT_CLASS_BY_TYPE[account.type] ?? null;
}

function isSystemAccount(account: AccountFacts): boolean {
  return Boolean(account.systemAccount && account.systemAccount.trim() !== '');
}

const STOCK_HINT = 'Choose an inventory or current asset account.';
const COST_HINT = 'Choose a cost of sales or expense account.';

/**
 * Why an account cannot serve as the given default, or null when it can. The kind checks come first (a
 * bank account as the stock account is wrong whatever its status), then the status. These are also the
 * rules that build each reference list, so a list only offers what saving accepts.
 */
export function findAccountProblem(kind: AccountKind, account: AccountFacts): string | null {
  const name = `"${account.name}"`;
  const isBank = account.type === 'BANK';
  const accountClass = getAccountClass(account);
  let problem: string | null = null;
  switch (kind) {
    case 'credit-card-account':
      if (!isBank) problem = `${name} is not a bank account. Choose a credit card account.`;
      else if (account.bankAccountType !== 'CREDITCARD')
        problem = `${name} is not a credit card account. Choose a credit card account.`;
      break;
    case 'cash-account':
      if (!isBank) problem = `${name} is not a bank account. Choose a bank account such as Cash.`;
      else if (account.bankAccountType === 'CREDITCARD')
        problem = `${name} is a credit card account. Choose a bank account such as Cash.`;
      break;
    case 'sales-account':
      if (accountClass !== 'REVENUE') problem = `${name} is not a revenue account. Choose a sales account.`;
      break;
    case 'bill-account':
      if (!COST_TYPES.has(account.type))
        problem = `${name} is not a direct costs, expense or overheads account.`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that Xero does not accept on bills. Choose another direct costs account.`;
      break;
    case 'stock-account':
      if (isBank) problem = `a bank account cannot be used in a stock journal. ${STOCK_HINT}`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that cannot be used in a manual journal. ${STOCK_HINT}`;
      else if (accountClass !== 'ASSET') problem = `${name} is not an asset account. ${STOCK_HINT}`;
      break;
    case 'cost-account':
      if (isBank) problem = `a bank account cannot be used in a stock journal. ${COST_HINT}`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that cannot be used in a manual journal. ${COST_HINT}`;
      else if (!COST_TYPES.has(account.type))
        problem = `${name} is not a cost of sales or expense account. ${COST_HINT}`;
      break;
  }
  if (problem) return problem;
  if (account.status === 'ARCHIVED') return `${name} is archived in Xero. Choose an active account.`;
  if (account.status !== 'ACTIVE') return `${name} has been deleted in Xero. Choose an active account.`;
  return null;
}

type TaxRateFacts = Pick<TaxRateRow, 'name' | 'status' | 'canApplyToRevenue' | 'canApplyToExpenses'>;

/** Why a VAT rate cannot serve as the sales or bill VAT rate, or null when it can. */
export function findVatRateProblem(kind: VatRateKind, rate: TaxRateFacts): string | null {
  const name = `"${rate.name}"`;
  if (rate.status !== 'ACTIVE') return `${name} is not active in Xero. Choose an active VAT rate.`;
  if (kind === 'sales-vat-rate' && !rate.canApplyToRevenue)
    return `${name} cannot be used on sales. Choose a VAT rate for income.`;
  if (kind === 'bill-vat-rate' && !rate.canApplyToExpenses)
    return `${name} cannot be used on bills. Choose a VAT rate for expenses.`;
  return null;
}

export function findContactProblem(contact: Pick<ContactRow, 'name' | 'status'>): string | null {
  if (contact.status === 'ACTIVE') return null;
  return contact.status === 'ARCHIVED'
    ? `"${contact.name}" is archived in Xero. Choose an active contact.`
    : `"${contact.name}" cannot be used in Xero (status ${contact.status}). Choose another contact.`;
}

export const NOT_FOUND: Record<SettingReferenceKind, string> = {
  'credit-card-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'cash-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'sales-account': 'the account was not found in Xero. Refresh the settings and choose again.',
  'bill-account': 'the account was not found in Xero. Refresh the CIS settings and choose again.',
  'stock-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'cost-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'sales-vat-rate': 'the VAT rate was not found in Xero. Refresh the settings and choose again.',
  'bill-vat-rate': 'the VAT rate was not found in Xero. Refresh the settings and choose again.',
  contact: 'the contact was not found in Xero. Search for it again.',
  'contact-group': 'the contact group was not found in Xero. Refresh the CIS settings and choose again.',
};

export function refuse(field: DefaultIdField | 'defaultStockJournalCostAccountId', reason: string): never {
  throw new AppError('VALIDATION_ERROR', `${SETTING_FIELD_LABELS[field]}: ${reason}`);
}

export function compareAccounts(a: AccountRow, b: AccountRow): number {
  // Xero lists accounts by code; bank accounts usually have none and come after, by name.
  const ac = a.code ?? '';
  const bc = b.code ?? '';
  if (ac && !bc) return -1;
  if (!ac && bc) return 1;
  if (ac !== bc) return ac.localeCompare(bc, 'en-GB', { numeric: true });
  return a.name.localeCompare(b.name, 'en-GB');
}
