import type { Account } from '@/shared/settings';

/**
 * How an account shows in the dropdowns and hints of Settings and CIS Bills. Wording only the browser uses,
 * so it lives here rather than in `@/shared/settings`.
 */

/**
 * Label of an account in a dropdown: "name (code)" (docs/product/features.md §2 CIS "Account Code dropdown
 * showing 'name (code)'"), or the name alone when the account has no code.
 */
export function getAccountLabel(account: Pick<Account, 'name' | 'code'>): string {
  return account.code ? `${account.name} (${account.code})` : account.name;
}

/**
 * Preview of an account id: its first 8 characters (docs/product/shell.md §9, docs/product/features.md §9
 * "Account id preview: first 8 characters").
 */
export function getAccountIdPreview(id: string | null | undefined): string {
  return (id ?? '').slice(0, 8);
}
