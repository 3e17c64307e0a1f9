import type { Account } from '@/shared/settings';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { getAccountLabel } from '@/client/lib/account-labels';

/**
 * The Account Code dropdown (docs/product/features.md §2): options 'name (code)', and the placeholder
 * 'Loading accounts...', 'Error loading accounts - Click refresh' or 'No accounts found'. Opening it while
 * the list is empty refreshes the accounts.
 */
export function AccountCodeSelect({
  id,
  accounts,
  value,
  onChange,
  isLoading,
  isError,
  onRefresh,
}: {
  id?: string;
  accounts: readonly Account[];
  value: string;
  onChange: (code: string) => void;
  isLoading: boolean;
  isError: boolean;
  onRefresh: () => void;
}) {
  const placeholder = isLoading
    ? 'Loading accounts...'
    : isError
      ? 'Error loading accounts - Click refresh'
      : accounts.length === 0
        ? 'No accounts found'
        : 'Select an account';
  return (
    <Select
      value={value === '' ? undefined : value}
      onValueChange={onChange}
      onOpenChange={(open) => {
        if (open && accounts.length === 0 && !isLoading) onRefresh();
      }}
    >
      <SelectTrigger id={id} aria-label="Account Code">
        <SelectValue placeholder={placeholder} />
      </SelectTrigger>
      <SelectContent>
        {accounts.length === 0 ? (
          <div className="px-3 py-4 text-center text-sm text-muted-foreground">{placeholder}</div>
        ) : (
          accounts.map((account) => (
            <SelectItem key={account.id} value={account.code}>
              {getAccountLabel(account)}
            </SelectItem>
          ))
        )}
      </SelectContent>
    </Select>
  );
}
