/**
 * Query keys of Pay Invoices: they start with the organisation (docs/code-style.md §2), so an organisation
 * switch never shows another tenant's invoices, and the shell's switch invalidation (`['org']`) clears them.
 */
export const payInvoicesKeys = {
  all: (orgId: number) => ['org', orgId, 'pay-invoices'] as const,
  invoices: (orgId: number) => ['org', orgId, 'pay-invoices', 'invoices'] as const,
  /** How complete the invoice list is (issue 19): set by each answer of the list, never fetched alone. */
  invoicesSync: (orgId: number) => ['org', orgId, 'pay-invoices', 'invoices-sync'] as const,
  bankAccounts: (orgId: number) => ['org', orgId, 'pay-invoices', 'bank-accounts'] as const,
  attachments: (orgId: number, invoiceId: string) =>
    ['org', orgId, 'pay-invoices', 'attachments', invoiceId] as const,
};
