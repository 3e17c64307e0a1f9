import { NONE_SELECT_VALUE } from '@/shared/settings';
import { getAccountIdPreview } from '@/client/lib/account-labels';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';

export interface SelectOption {
  value: string;
  label: string;
}

export interface ReferenceSelectProps {
  id?: string;
  value: string;
  options: readonly SelectOption[];
  onChange: (value: string) => void;
  disabled?: boolean;
  loading?: boolean;
  /** What the chosen item is, for the "not in the list" label ("account", "VAT rate"…). */
  noun: string;
  /** Offer "None" (the value "none" means null, docs/product/shell.md §2). Off for the status selects. */
  allowNone?: boolean;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/**
 * A select over a reference list. "None" stands for no default; a saved id the list no longer offers
 * (archived, deleted, or of the wrong kind) stays visible as such, with the first 8 characters of its id
 * (docs/product/shell.md §9 "Account id preview"), so nobody changes it by accident.
 */
export function ReferenceSelect({
  value,
  options,
  onChange,
  disabled,
  loading,
  noun,
  allowNone = true,
  ...rest
}: ReferenceSelectProps) {
  const known = value === NONE_SELECT_VALUE || options.some((o) => o.value === value);
  const placeholder = loading ? 'Loading…' : allowNone ? 'None' : `Choose a ${noun}`;
  return (
    <Select value={value} onValueChange={onChange} disabled={disabled}>
      <SelectTrigger
        id={rest.id}
        aria-invalid={rest['aria-invalid']}
        aria-describedby={rest['aria-describedby']}
      >
        <SelectValue placeholder={placeholder} />
      </SelectTrigger>
      <SelectContent>
        {allowNone ? <SelectItem value={NONE_SELECT_VALUE}>None</SelectItem> : null}
        {!known && !loading ? (
          <SelectItem value={value}>{`Unavailable ${noun} (${getAccountIdPreview(value)})`}</SelectItem>
        ) : null}
        {options.map((option) => (
          <SelectItem key={option.value} value={option.value}>
            {option.label}
          </SelectItem>
        ))}
        {options.length === 0 && !loading ? (
          <p className="px-3 py-2 text-sm text-muted-foreground">
            No {noun}s found in Xero. Try the refresh button.
          </p>
        ) : null}
      </SelectContent>
    </Select>
  );
}
