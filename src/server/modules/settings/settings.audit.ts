/** The activity-log lines of Settings and its maintenance, in words (src/server/modules/audit/describe.ts). */
import {
  accountText,
  dateText,
  defineAuditActions,
  failureText,
  formatCount,
  numberOf,
  recordOf,
  textOf,
  type AuditNames,
} from '../audit/describe';

/** What each default is called on the Settings screen, and how its value is named. */
const FIELDS: Record<string, { label: string; kind: 'account' | 'taxRate' | 'contact' | 'group' | 'text' }> =
  {
    defaultCreditCardAccountId: { label: 'credit card account', kind: 'account' },
    defaultCashAccountId: { label: 'cash account', kind: 'account' },
    defaultSalesAccountId: { label: 'sales account', kind: 'account' },
    defaultVatRateId: { label: 'VAT rate', kind: 'taxRate' },
    defaultBillVatRateId: { label: 'bill VAT rate', kind: 'taxRate' },
    defaultBillAccountId: { label: 'bill account', kind: 'account' },
    defaultContactId: { label: 'contact', kind: 'contact' },
    defaultTaxStatus: { label: 'tax status', kind: 'text' },
    defaultCisSubcontractorsGroupId: { label: 'CIS subcontractors group', kind: 'group' },
    defaultStockJournalContactId: { label: 'stock journal contact', kind: 'contact' },
    defaultStockJournalMarginRate: { label: 'margin rate', kind: 'text' },
    defaultStockJournalStockAccountId: { label: 'stock account', kind: 'account' },
    defaultStockJournalCostAccountId: { label: 'cost account', kind: 'account' },
    defaultStockJournalPostingStatus: { label: 'posting status', kind: 'text' },
  };

/** A default's value in words: the account's name and code, the rate's name, "none". */
function valueText(field: string, value: unknown, names: AuditNames): string {
  if (value === null || value === undefined || value === '') return 'none';
  switch (FIELDS[field]?.kind) {
    case 'account':
      return accountText(names, value);
    case 'taxRate':
      return names.taxRate(value) ?? String(value);
    case 'contact':
      return names.contact(value) ?? 'a contact';
    case 'group':
      return names.contactGroup(value) ?? 'a contact group';
    default:
      if (value === 'draft') return 'Draft';
      if (value === 'posted') return 'Posted';
      return String(value);
  }
}

export const settingsAuditActions = defineAuditActions({
  'settings.update': {
    describe: (line, names) => {
      if (line.result === 'failure') return `Settings not saved${failureText(line)}`;
      const before = recordOf(line.detail, 'before') ?? {};
      const after = recordOf(line.detail, 'after') ?? {};
      const changes = Object.keys(after).map(
        (field) =>
          `the ${FIELDS[field]?.label ?? field} from ${valueText(field, before[field], names)} to ${valueText(field, after[field], names)}`,
      );
      return changes.length > 0 ? `Changed ${changes.join('; ')}` : 'Saved the settings (nothing changed)';
    },
    example: {
      detail: {
        before: {
          defaultCashAccountId: null,
          defaultTaxStatus: 'Tax inclusive',
          defaultStockJournalMarginRate: 1.35,
        },
        after: {
          defaultCashAccountId: '7d2e8c1a-0f5b-4e4c-9a51-2c7f3b6d9e10',
          defaultTaxStatus: 'Tax exclusive',
          defaultStockJournalMarginRate: 1.4,
        },
      },
    },
  },
  'settings.cleanup.bank-accounts': {
    describe: (line) => {
      const deleted = numberOf(line.detail, 'deletedCount') ?? 0;
      const kept = numberOf(line.detail, 'kept');
      return `Cleaned up duplicate bank accounts: ${formatCount(deleted, 'duplicate')} removed from Ledgerlink’s copy${kept === null ? '' : `, ${formatCount(kept, 'account')} kept`}`;
    },
    example: { detail: { deletedCount: 2, kept: 5 } },
  },
  'settings.cleanup.data': {
    describe: (line) => {
      const invoices = numberOf(line.detail, 'deletedInvoices') ?? 0;
      const payments = numberOf(line.detail, 'deletedPayments') ?? 0;
      const before = dateText(textOf(line.detail, 'before'));
      return `Cleaned up old data: ${formatCount(invoices, 'invoice')} and ${formatCount(payments, 'payment')}${before ? ` from before ${before}` : ''} removed from Ledgerlink’s copy (nothing in Xero changed)`;
    },
    example: { detail: { deletedInvoices: 12, deletedPayments: 1, before: '2026-01-05' } },
  },
});
