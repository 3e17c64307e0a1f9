import { Check, ChevronDown, Search, TriangleAlert } from 'lucide-react';
import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { findCisSubcontractors, type CisContact } from '@/shared/cis-bills';
import { cn } from '@/client/lib/utils';
import { Picker, PickerContent, PickerTrigger } from '@/client/components/ui/picker';
import { Spinner } from '@/client/components/ui/spinner';
import { getCisContactLabel } from '../utils/messages';

/**
 * The subcontractor dropdown (docs/product/features.md §2): a search box 'Search contractors...' filtering by
 * case-insensitive name, contacts sorted by name, contractors or suppliers only, '(No UTR)' on contacts whose
 * hasValidUTR is false, and 'No CIS subcontractors found' when nothing matches.
 */
export function SubcontractorPicker({
  contacts,
  value,
  onChange,
  isLoading,
  id,
  invalid,
}: {
  contacts: readonly CisContact[];
  value: string;
  onChange: (contactId: string) => void;
  isLoading: boolean;
  id?: string;
  invalid?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  const options = useMemo(() => findCisSubcontractors(contacts, search), [contacts, search]);
  const selected = contacts.find((c) => c.id === value);

  function choose(contact: CisContact) {
    onChange(contact.id);
    setOpen(false);
    setSearch('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = Math.max(0, Math.min(options.length - 1, active + (event.key === 'ArrowDown' ? 1 : -1)));
      setActive(next);
      listRef.current?.querySelector(`[data-index="${next}"]`)?.scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const option = options[active];
      if (option) choose(option);
    }
  }

  return (
    <Picker
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next)
          setActive(
            Math.max(
              0,
              options.findIndex((o) => o.id === value),
            ),
          );
        else setSearch('');
      }}
    >
      <PickerTrigger
        id={id}
        expanded={open}
        listId={listId}
        aria-haspopup="listbox"
        aria-invalid={invalid || undefined}
        aria-label={selected ? `Subcontractor: ${getCisContactLabel(selected)}` : 'Subcontractor'}
        className={cn(!selected && 'text-muted-foreground')}
      >
        <span className="flex min-w-0 items-center gap-1.5">
          {selected && !selected.hasValidUTR ? (
            <TriangleAlert aria-hidden className="size-3.5 shrink-0 text-warning-foreground" />
          ) : null}
          <span className="truncate">{selected ? getCisContactLabel(selected) : 'Select subcontractor'}</span>
        </span>
        {isLoading ? (
          <Spinner className="size-4" label="Loading subcontractors" />
        ) : (
          <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
        )}
      </PickerTrigger>
      <PickerContent className="p-1 animate-fade-in">
        <div className="flex items-center gap-2 border-b border-border px-2 pb-1">
          <Search aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          <input
            autoFocus
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
            placeholder="Search contractors..."
            aria-label="Search contractors"
            aria-controls={listId}
            aria-activedescendant={options[active] ? `${listId}-${active}` : undefined}
            className="h-9 w-full bg-transparent text-sm outline-none placeholder:text-muted-foreground"
          />
        </div>
        <ul
          ref={listRef}
          id={listId}
          role="listbox"
          aria-label="Subcontractors"
          className="max-h-64 overflow-y-auto py-1"
        >
          {options.length === 0 ? (
            <li className="px-3 py-6 text-center text-sm text-muted-foreground">
              {isLoading ? 'Loading subcontractors...' : 'No CIS subcontractors found'}
            </li>
          ) : (
            options.map((contact, index) => (
              <li
                key={contact.id}
                id={`${listId}-${index}`}
                data-index={index}
                role="option"
                aria-label={getCisContactLabel(contact)}
                aria-selected={contact.id === value}
                onMouseEnter={() => setActive(index)}
                onClick={() => choose(contact)}
                className={cn(
                  'relative flex cursor-default select-none items-center gap-2 rounded-md py-2 pl-8 pr-2 text-sm',
                  index === active && 'bg-muted',
                )}
              >
                {contact.id === value ? (
                  <Check aria-hidden className="absolute left-2 size-4 text-primary" />
                ) : null}
                <span className="truncate">{contact.name}</span>
                {contact.hasValidUTR ? null : (
                  <span className="shrink-0 text-xs font-medium text-warning-foreground">(No UTR)</span>
                )}
              </li>
            ))
          )}
        </ul>
      </PickerContent>
    </Picker>
  );
}
