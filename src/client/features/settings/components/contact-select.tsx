import { Check, ChevronDown, Search } from 'lucide-react';
import { useEffect, useId, useMemo, useState } from 'react';
import { NONE_SELECT_VALUE } from '@/shared/settings';
import { Input } from '@/client/components/ui/input';
import { Picker, PickerContent, PickerTrigger } from '@/client/components/ui/picker';
import { Spinner } from '@/client/components/ui/spinner';
import { cn } from '@/client/lib/utils';
import { useContacts } from '../api/get-contacts';
import type { OrgId } from '@/client/lib/org-url';

/**
 * The contact selector searches the server 0.5 s after the last key stroke (docs/product/shell.md §2, §9).
 */
export const CONTACT_SEARCH_DEBOUNCE_MS = 500;

function useDebounced<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}

export interface ContactSelectProps {
  id?: string;
  orgId: OrgId;
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/**
 * A searchable contact picker: the typed text goes to `GET /api/xero/contacts?search=` after a 0.5 s pause;
 * the chosen contact is asked for by id as well so its name shows whatever the search.
 */
export function ContactSelect({ id, orgId, value, onChange, disabled, ...aria }: ContactSelectProps) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search, CONTACT_SEARCH_DEBOUNCE_MS);
  const chosen = value !== NONE_SELECT_VALUE && value !== '' ? [value] : [];
  const chosenKey = chosen.join(',');
  const ids = useMemo(() => (chosenKey ? [chosenKey] : []), [chosenKey]);
  const results = useContacts(orgId, open ? debounced : '', ids);
  const listId = useId();
  const contacts = results.data ?? [];
  const chosenName = contacts.find((c) => c.id === value)?.name;
  const label =
    chosen.length === 0 ? 'None' : (chosenName ?? (results.isLoading ? 'Loading…' : 'Unavailable contact'));
  const searching = open && (search !== debounced || results.isFetching);
  const matches = contacts.filter(
    (c) =>
      c.id !== value ||
      debounced.trim() === '' ||
      c.name.toLowerCase().includes(debounced.trim().toLowerCase()),
  );

  function choose(next: string) {
    onChange(next);
    setOpen(false);
    setSearch('');
  }

  return (
    <Picker open={open} onOpenChange={setOpen}>
      <PickerTrigger
        id={id}
        expanded={open}
        listId={listId}
        aria-invalid={aria['aria-invalid']}
        aria-describedby={aria['aria-describedby']}
        disabled={disabled}
      >
        <span className={cn('truncate', chosen.length === 0 && 'text-muted-foreground')}>{label}</span>
        <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
      </PickerTrigger>
      <PickerContent label="Choose a contact" className="p-2">
        <div className="relative">
          <Search
            aria-hidden
            className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
          />
          <Input
            autoFocus
            aria-label="Search contacts"
            placeholder="Search contacts..."
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            className="pl-8"
          />
          {searching ? (
            <span className="absolute right-2.5 top-1/2 -translate-y-1/2">
              <Spinner className="size-4" label="Searching contacts" />
            </span>
          ) : null}
        </div>
        <ul id={listId} role="listbox" aria-label="Contacts" className="mt-2 max-h-64 overflow-y-auto">
          <ContactOption
            label="None"
            selected={chosen.length === 0}
            onSelect={() => choose(NONE_SELECT_VALUE)}
            muted
          />
          {matches.map((contact) => (
            <ContactOption
              key={contact.id}
              label={contact.name}
              selected={contact.id === value}
              onSelect={() => choose(contact.id)}
            />
          ))}
          {!searching && matches.length === 0 ? (
            <li role="presentation" className="px-3 py-2 text-sm text-muted-foreground">
              No contacts match “{debounced.trim()}”.
            </li>
          ) : null}
        </ul>
      </PickerContent>
    </Picker>
  );
}

function ContactOption({
  label,
  selected,
  onSelect,
  muted,
}: {
  label: string;
  selected: boolean;
  onSelect: () => void;
  muted?: boolean;
}) {
  return (
    <li role="presentation">
      <button
        type="button"
        role="option"
        aria-selected={selected}
        onClick={onSelect}
        className={cn(
          'flex w-full items-center gap-2 rounded-md px-2 py-2 text-left text-sm hover:bg-muted focus-visible:bg-muted focus-visible:outline-none',
          muted && 'text-muted-foreground',
        )}
      >
        <Check aria-hidden className={cn('size-4 shrink-0 text-primary', !selected && 'invisible')} />
        <span className="truncate">{label}</span>
      </button>
    </li>
  );
}
