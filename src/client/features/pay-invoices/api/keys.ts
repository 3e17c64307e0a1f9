/**
 * Query keys of Pay Invoices: they start with the organisation (STYLE §2), so an organisation switch never
 * shows another tenant's invoices, and the shell's switch invalidation (`['org']`) clears them.
 */
export const payInvoicesKeys = {
  all: (orgId: number) => ['org', orgId, 'pay-invoices'] as const,
  invoices: (orgId: number) => ['org', orgId, 'pay-invoices', 'invoices'] as const,
  bankAccounts: (orgId: number) => ['org', orgId, 'pay-invoices', 'bank-accounts'] as const,
  attachments: (orgId: number, invoiceId: string) =>
    ['org', orgId, 'pay-invoices', 'attachments', invoiceId] as const,
};

/**
 * Every call names the organisation the screen shows (`?org=`), so a switch made in another tab can never
 * send a payment to a different organisation than the one on screen. Organisation ids must be non-empty
 * (001 §5 "Organization IDs must be non-empty strings, else 'Invalid organization ID'").
 */
export function withOrg(
  path: string,
  orgId: number | string | null | undefined,
  query: Record<string, string | undefined> = {},
): string {
  const id = orgId === null || orgId === undefined ? '' : String(orgId).trim();
  if (id === '') throw new Error('Invalid organization ID');
  const params = new URLSearchParams({ org: id });
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  return `${path}?${params.toString()}`;
}
